#pragma once
/// \file immersed_boundary.hpp
/// Direct-forcing immersed boundaries (Chen et al. §3.1 and Alg. 2 step (c); Uhlmann, J. Comput.
/// Phys. 209, 448 (2005)) on the dense solver's per-voxel force field. Before each step:
///  1. the voxels the markers' kernels reached when the field was last set lose what was spread
///     there (and, for a moving body, get the case's own force back; every other voxel still
///     holds it: a step costs O(markers), not a field copy);
///  2. one thread per marker (Chen et al. §4.3.2, "scattering") interpolates the velocity at its
///     position from the populations the step will read, u = (sum c f + F/2) / rho with F the
///     case's force plus what was spread so far (Guo, Zheng & Shi 2002), with the delta kernel
///     (Eq. 6), and sets the force density F_m = 2 rho (U_b - u): the force that, through
///     Guo's half-force velocity, makes the interpolated velocity equal the body's (Eq. 7, with
///     the factor 2 of the half force);
///  3. one thread per marker spreads F_m A_m (A_m its area) with the same kernel to the voxels
///     around it by atomic additions (Eq. 8);
///  repeated `forcing_iterations` times (multi-direct forcing: steps 2 and 3 see the force
///  spread so far); then the voxels the markers reach take the case's force plus all spread
///  there. The stream-collide kernels add the field by Guo forcing (Features::force_field). The
///  force on the body is the reaction -sum_m F_m A_m plus the inertia of the fluid inside the
///  body (Uhlmann 2005, for a rigid body).
///
/// Under MPI (slabs) every rank holds every marker: a rigid body's markers are few next to the
/// fluid, and their prescribed motion is known everywhere. Step 2 runs in two parts: each rank
/// sums the delta-weighted moments over the stencil voxels it owns (a stencil that crosses a slab
/// boundary is cut between the ranks, as it is between owned and halo planes), the ranks add
/// their sums (one all-reduce of five numbers per marker), and every rank then sets the same
/// increments and spreads them to its owned voxels. The interpolation reads the halo planes
/// (the pull of an owned voxel next to them), so they are exchanged before the forcing.
///
/// Every sum over markers or stencil points (the interpolation sums, their all-reduce, the
/// spreading's atomic additions and the body force) is a FixedPointSum: its bits do not depend on
/// the thread count, the order of the markers or the decomposition, so a run with a body gives
/// the same bits on any number of threads and ranks, as a run without one does.

#include <karman/comm/ranks.hpp>
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/lbm/delta_kernel.hpp>
#include <karman/lbm/fixed_point_sum.hpp>
#include <karman/lbm/immersed_body.hpp>
#include <karman/lbm/lagrangian_markers.hpp>
#include <karman/lbm/moments_kernel.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <functional>
#include <string>

namespace karman::lbm {

/// Where a rank's stencils land: its box with halo planes, the global coordinates of its local
/// voxel 0, and the global extent and periodicity of the slab axis.
struct MarkerBox {
  Extents local;
  int origin[3] = {0, 0, 0};
  int slab_extent = 0;
  bool slab_periodic = false;
};

/// The voxels a marker's delta kernel reaches: per axis the first voxel and the weights (the
/// third axis of a 2D lattice is the one plane z = 0 with weight 1), in global coordinates, so
/// that every rank computes the same weights for a marker.
template <int D, class Kernel>
struct MarkerStencil {
  static constexpr int support_z = D == 3 ? Kernel::support : 1;
  DeltaStencil1D<Kernel> x, y;
  int first_z = 0;
  double weight_z[support_z] = {};

  /// The stencil of the marker at global coordinates p.
  KOKKOS_INLINE_FUNCTION explicit MarkerStencil(const double p[3]) : x(p[0]), y(p[1]) {
    if constexpr (D == 3) {
      const DeltaStencil1D<Kernel> z(p[2]);
      first_z = z.first;
      for (int k = 0; k < support_z; ++k) weight_z[k] = z.weight[k];
    } else {
      weight_z[0] = 1.0;
    }
  }

  /// Points of the stencil: Kernel::support per axis.
  static constexpr int points = Kernel::support * Kernel::support * support_z;

  /// Point n (x fastest) of the stencil in `box`: its local voxel v and weight w, or false when
  /// it falls outside the rank's owned planes. Along the slab axis the stencil is cut to the
  /// owned planes (the others are a neighbour's, or the halo) after wrapping around a periodic
  /// slab axis; across it coordinates wrap around, as the dense box's neighbours do
  /// (neighbours.hpp), so a marker near a periodic side reaches the voxels across it (walls and
  /// inlets sit on the other sides). Kernels loop over n: a loop body, not a lambda, since nvcc
  /// takes a lambda in device code for a host function.
  KOKKOS_INLINE_FUNCTION bool point(const MarkerBox& box, int n, index_t& v, double& w) const {
    const int a = n % Kernel::support, b = n / Kernel::support % Kernel::support;
    const int c = n / (Kernel::support * Kernel::support);
    int i = x.first + a, j = y.first + b, k = first_z + c;
    if (!place(box, 2, k) || !place(box, 1, j) || !place(box, 0, i)) return false;
    v = box.local.index(i, j, k);
    w = x.weight[a] * y.weight[b] * weight_z[c];
    return true;
  }

 private:
  /// Puts global coordinate c along `along` into the box's local coordinates; false when it
  /// falls outside the owned planes.
  KOKKOS_INLINE_FUNCTION static bool place(const MarkerBox& box, int along, int& c) {
    const int n = box.local.extent(along);
    if (along == box.local.slab_axis()) {
      if (box.slab_periodic) c = ((c % box.slab_extent) + box.slab_extent) % box.slab_extent;
      c -= box.origin[along];
      return c >= 1 && c < n - 1;
    }
    c = ((c % n) + n) % n;
    return true;
  }
};

/// Per voxel and axis, the markers' forces spread there so far, in fixed point.
template <class MemorySpace>
using SpreadForce = Kokkos::View<FixedPointSum::integer**, Kokkos::LayoutLeft, MemorySpace>;

/// The force at voxel v along axis d with what the markers spread so far: the case's force
/// `base` plus the spread sum, as the field will hold it for the step (MarkerForceUpdate).
template <class BaseView, class SpreadView>
KOKKOS_INLINE_FUNCTION typename BaseView::value_type force_with_spread(const BaseView& base, const SpreadView& spread,
                                                                       index_t v, int d) {
  using T = typename BaseView::value_type;
  return base(v, d) + T(FixedPointSum::to(spread(v, d)));
}

/// The first part of step 2 for every marker: the delta-weighted sums of u, rho and the fluid
/// weight over the stencil voxels this rank owns, with the force spread so far, in fixed point
/// (a stencil cut between ranks gives the same sum); the ranks add them before MarkerIncrement.
template <class L, class P, class Layout, class MemorySpace, class Kernel>
struct MarkerSums {
  using T = compute_t<P>;
  using access_type = PopulationAccess<L, P, Layout, MemorySpace, StepKind::ab_pull, Features<true, true, true>>;
  access_type access;
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> base;
  Kokkos::View<const FixedPointSum::integer**, Kokkos::LayoutLeft, MemorySpace> spread;
  LagrangianMarkers<MemorySpace> markers;
  Kokkos::View<FixedPointSum::integer**, Kokkos::LayoutRight, MemorySpace>
      sums;  ///< per marker: u (3), rho, fluid weight
  MarkerBox box;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = markers.position(m, d);
    const MarkerStencil<L::D, Kernel> stencil(p);
    FixedPointSum::integer u[3] = {0, 0, 0}, rho = 0, fluid_weight = 0;
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      const flag_t fl = access.flags(v);
      // A wall voxel in the stencil counts as fluid at rest: no velocity, no density.
      if (flags::kind(fl) == CellKind::solid) continue;
      T f[L::Q];
      access.load(v, fl, Neighbours<L::D>(v, access.topology), access.plane_spans(v), f);
      const T force[3] = {force_with_spread(base, spread, v, 0), force_with_spread(base, spread, v, 1),
                          L::D == 3 ? force_with_spread(base, spread, v, 2) : T(0)};
      T r, uv[3];
      moments<L, T, true>(f, force, r, uv);
      for (int d = 0; d < 3; ++d) u[d] += FixedPointSum::from(w * double(uv[d]));
      rho += FixedPointSum::from(w * double(r));
      fluid_weight += FixedPointSum::from(w);
    }
    for (int d = 0; d < 3; ++d) sums(m, d) = u[d];
    sums(m, 3) = rho;
    sums(m, 4) = fluid_weight;
  }
};

/// The second part of step 2 for every marker: its force density increment from the summed
/// interpolation, accumulated into the marker's total.
template <class MemorySpace>
struct MarkerIncrement {
  LagrangianMarkers<MemorySpace> markers;
  Kokkos::View<const FixedPointSum::integer**, Kokkos::LayoutRight, MemorySpace> sums;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    const double fluid_weight = FixedPointSum::to(sums(m, 4));
    const double rho = fluid_weight > 0 ? FixedPointSum::to(sums(m, 3)) / fluid_weight : 1.0;
    for (int d = 0; d < 3; ++d) {
      const double increment = 2.0 * rho * (markers.velocity(m, d) - FixedPointSum::to(sums(m, d)));
      markers.increment(m, d) = increment;
      markers.force(m, d) += increment;
    }
  }
};

/// Step 3 for every marker: its increment times its area, spread by the kernel into `spread`.
/// Markers share voxels, hence atomic additions (Chen et al. §4.3.2), of integers: the sum at a
/// voxel does not depend on which marker's thread adds first.
template <int D, class MemorySpace, class Kernel>
struct MarkerSpreading {
  SpreadForce<MemorySpace> spread;
  LagrangianMarkers<MemorySpace> markers;
  MarkerBox box;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = markers.position(m, d);
    const MarkerStencil<D, Kernel> stencil(p);
    const double a = markers.area(m);
    double g[D];
    for (int d = 0; d < D; ++d) g[d] = markers.increment(m, d) * a;
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      for (int d = 0; d < D; ++d) Kokkos::atomic_add(&spread(v, d), FixedPointSum::from(w * g[d]));
    }
  }
};

/// After the last forcing iteration, for every marker: the voxels its kernel reaches take the
/// case's force `base` plus the force spread there. Markers that share a voxel write the same
/// value there.
template <int D, class T, class MemorySpace, class Kernel>
struct MarkerForceUpdate {
  Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace> field;
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> base;
  Kokkos::View<const FixedPointSum::integer**, Kokkos::LayoutLeft, MemorySpace> spread;
  LagrangianMarkers<MemorySpace> markers;
  MarkerBox box;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = markers.position(m, d);
    const MarkerStencil<D, Kernel> stencil(p);
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      for (int d = 0; d < D; ++d) field(v, d) = force_with_spread(base, spread, v, d);
    }
  }
};

/// Step 1 for every marker: the voxels its kernel reached from `position` (where it was when the
/// field was last set) hold nothing spread, and, when the body moves (`restore_field`), the case's
/// force `base` again (a body at rest reaches the same voxels, which MarkerForceUpdate rewrites).
/// Markers that share a voxel write the same value there.
template <int D, class T, class MemorySpace, class Kernel>
struct MarkerStencilReset {
  Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace> field;
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> base;
  SpreadForce<MemorySpace> spread;
  Kokkos::View<const double* [3], Kokkos::LayoutLeft, MemorySpace> position;
  MarkerBox box;
  bool restore_field;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = position(m, d);
    const MarkerStencil<D, Kernel> stencil(p);
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      for (int d = 0; d < D; ++d) {
        if (restore_field) field(v, d) = base(v, d);
        spread(v, d) = 0;
      }
    }
  }
};

/// Places every marker at its reference position plus a rigid displacement, with the body's
/// velocity (ImmersedBoundary::move). A functor: CUDA forbids extended lambdas in private members.
template <class Markers>
struct MoveMarkers {
  Markers markers;
  RigidMotion motion;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t m) const {
    for (int d = 0; d < 3; ++d) {
      markers.position(m, d) = markers.reference(m, d) + motion.displacement[d];
      markers.velocity(m, d) = motion.velocity[d];
    }
  }
};

/// The direct-forcing immersed boundary of one rigid body on one rank's force field.
template <class L, class P, class Layout, class MemorySpace>
class ImmersedBoundary {
 public:
  using T = compute_t<P>;
  using field_type = Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;
  using access_type = PopulationAccess<L, P, Layout, MemorySpace, StepKind::ab_pull, Features<true, true, true>>;
  using sums_type = Kokkos::View<FixedPointSum::integer**, Kokkos::LayoutRight, MemorySpace>;

  ImmersedBoundary() = default;
  /// The body's markers (in the order of its `marker_block`) acting on `field`, whose present values are
  /// the case's own force, restored before each step. `ranks` share the box in slabs of
  /// `slab_extent` voxels along the slab axis in all, periodic or not.
  ImmersedBoundary(const ImmersedBody& body, const field_type& field, const comm::Ranks& ranks, int slab_extent,
                   bool slab_periodic)
      : m_kernel(body.kernel),
        m_iterations(body.forcing_iterations),
        m_volume(body.volume),
        m_motion(body.motion),
        m_markers(body.markers.sorted(body.marker_block)),
        m_field(field),
        m_base("karman::base_force", field.extent(0), field.extent(1)),
        m_spread_force("karman::spread_force", field.extent(0), field.extent(1)),
        m_spread_at("karman::marker_spread_at", m_markers.size()),
        m_sums("karman::marker_sums", m_markers.size(), std::size_t(5)),
        m_ranks(ranks),
        m_slab_extent(slab_extent),
        m_slab_periodic(slab_periodic) {
    require_in_range("karman::lbm::ImmersedBoundary", "forcing_iterations", body.forcing_iterations, 1, 100);
    Kokkos::deep_copy(m_base, field);
  }

  /// Markers of the body.
  std::size_t size() const { return m_markers.size(); }
  const LagrangianMarkers<MemorySpace>& markers() const { return m_markers; }

  /// Moves the markers to time `time` and sets the field for the populations `access` reads,
  /// halos exchanged: the case's force plus the markers' (steps 1-3 above). Collective.
  void apply(const access_type& access, double time) {
    Kokkos::deep_copy(m_markers.force, 0.0);
    const Kokkos::RangePolicy<execution_space> all(0, m_markers.size());
    MarkerBox box{access.topology, {}, m_slab_extent, m_slab_periodic};
    for (int d = 0; d < 3; ++d) box.origin[d] = access.origin[d];
    dispatch_delta_kernel(m_kernel, [&](auto kernel) {
      using Kernel = decltype(kernel);
      if (m_spread) {
        Kokkos::parallel_for("karman::ib_reset", all,
                             MarkerStencilReset<L::D, T, MemorySpace, Kernel>{m_field, m_base, m_spread_force,
                                                                              m_spread_at, box, bool(m_motion)});
      }
      move(time);
      const MarkerSums<L, P, Layout, MemorySpace, Kernel> sums{access, m_base, m_spread_force, m_markers, m_sums, box};
      const MarkerIncrement<MemorySpace> increment{m_markers, m_sums};
      const MarkerSpreading<L::D, MemorySpace, Kernel> spreading{m_spread_force, m_markers, box};
      const MarkerForceUpdate<L::D, T, MemorySpace, Kernel> force_update{m_field, m_base, m_spread_force, m_markers,
                                                                         box};
      for (int k = 0; k < m_iterations; ++k) {
        Kokkos::parallel_for("karman::ib_interpolation", all, sums);
        add_over_ranks();
        Kokkos::parallel_for("karman::ib_forcing", all, increment);
        Kokkos::parallel_for("karman::ib_spreading", all, spreading);
      }
      Kokkos::parallel_for("karman::ib_force_update", all, force_update);
    });
    Kokkos::deep_copy(m_spread_at, m_markers.position);
    m_spread = true;
    compat::fence(execution_space(), "karman::ib_applied");
  }

  /// This rank's share of the force of the fluid on the body with the markers' forces of the
  /// last apply() at `time`: -sum_m F_m A_m + rho V a (rho = 1, the inertia of the fluid inside)
  /// on rank 0, which holds every marker's force as every rank does; zeros on the others.
  std::array<double, 3> body_force(double time) const {
    std::array<double, 3> force{0, 0, 0};
    if (!m_ranks.root()) return force;
    const auto markers = m_markers;
    for (int d = 0; d < L::D; ++d) {
      FixedPointSum::integer sum = 0;
      Kokkos::parallel_reduce(
          "karman::ib_body_force", Kokkos::RangePolicy<execution_space>(0, markers.size()),
          KOKKOS_LAMBDA(const index_t m, FixedPointSum::integer& s) {
            s += FixedPointSum::from(markers.force(m, d) * markers.area(m));
          },
          sum);
      force[std::size_t(d)] = -FixedPointSum::to(sum);
    }
    if (m_motion) {
      const RigidMotion r = m_motion(time);
      for (int d = 0; d < L::D; ++d) force[std::size_t(d)] += m_volume * r.acceleration[d];
    }
    return force;
  }

 private:
  /// Marker positions and velocities of the prescribed motion at `time`.
  void move(double time) {
    if (!m_motion) return;
    Kokkos::parallel_for("karman::ib_move", Kokkos::RangePolicy<execution_space>(0, m_markers.size()),
                         MoveMarkers<LagrangianMarkers<MemorySpace>>{m_markers, m_motion(time)});
  }

  /// The interpolation sums of every rank added, on every rank (through host memory: MPI may not
  /// read device memory; integers, so in any order of the ranks). Nothing to do on one rank.
  void add_over_ranks() {
    if (m_ranks.size() == 1) return;
    const auto host = Kokkos::create_mirror_view(m_sums);
    Kokkos::deep_copy(host, m_sums);
    m_ranks.sum_in_place(host.data(), host.size());
    Kokkos::deep_copy(m_sums, host);
  }

  DeltaKernel m_kernel = DeltaKernel::roma3;
  int m_iterations = 1;
  double m_volume = 0;
  std::function<RigidMotion(double)> m_motion;
  LagrangianMarkers<MemorySpace> m_markers;
  field_type m_field;
  field_type m_base;
  /// The markers' forces spread since the last reset, per voxel of the field.
  SpreadForce<MemorySpace> m_spread_force;
  /// Marker positions when the field was last set, and whether it was.
  typename LagrangianMarkers<MemorySpace>::vector_view m_spread_at;
  bool m_spread = false;
  /// Each marker's interpolation sums (MarkerSums), this rank's and then every rank's.
  sums_type m_sums;
  comm::Ranks m_ranks;
  int m_slab_extent = 0;
  bool m_slab_periodic = false;
};

}  // namespace karman::lbm
