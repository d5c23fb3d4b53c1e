#pragma once
/// \file immersed_boundary.hpp
/// Direct-forcing immersed boundaries (Chen et al. §3.1 and Alg. 2 step (c); Uhlmann, J. Comput.
/// Phys. 209, 448 (2005)) on the dense solver's per-voxel force field. Before each step:
///  1. the voxels the markers' kernels reached when the field was last set get the case's own
///     force back (every other voxel still holds it: a step costs O(markers), not a field copy);
///  2. one thread per marker (Chen et al. §4.3.2, "scattering") interpolates the velocity at its
///     position from the populations the step will read, u = (sum c f + F/2) / rho with the
///     field's F (Guo, Zheng & Shi 2002), with the delta kernel (Eq. 6), and sets the force
///     density F_m = 2 rho (U_b - u): the force that, through Guo's half-force velocity, makes
///     the interpolated velocity equal the body's (Eq. 7, with the factor 2 of the half force);
///  3. one thread per marker spreads F_m A_m (A_m its area) with the same kernel to the voxels
///     around it by atomic additions (Eq. 8);
///  repeated `forcing_iterations` times (multi-direct forcing: steps 2 and 3 see the force
///  spread so far). The stream-collide kernels then add the field by Guo forcing
///  (Features::force_field). The force on the body is the reaction -sum_m F_m A_m plus the
///  inertia of the fluid inside the body (Uhlmann 2005, for a rigid body).

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/neighbours.hpp>
#include <karman/lbm/delta_kernel.hpp>
#include <karman/lbm/immersed_body.hpp>
#include <karman/lbm/lagrangian_markers.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <functional>
#include <string>

namespace karman::lbm {

/// The voxels a marker's delta kernel reaches: per axis the first voxel and the weights (the
/// third axis of a 2D lattice is the one plane z = 0 with weight 1), in local coordinates.
template <int D, class Kernel>
struct MarkerStencil {
  static constexpr int support_z = D == 3 ? Kernel::support : 1;
  DeltaStencil1D<Kernel> x, y;
  int first_z = 0;
  double weight_z[support_z] = {};

  /// The stencil of the marker at local coordinates p.
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

  /// Point n (x fastest) of the stencil in `box`: its voxel v and weight w, or false when it
  /// falls outside the owned planes. Along the slab axis the stencil is cut to the owned planes
  /// (the halo planes are the neighbour's); across it coordinates wrap around, as the dense box's
  /// neighbours do (neighbours.hpp), so a marker near a periodic side reaches the voxels across
  /// it (walls and inlets sit on the other sides). Kernels loop over n: a loop body, not a
  /// lambda, since nvcc takes a lambda in device code for a host function.
  KOKKOS_INLINE_FUNCTION bool point(const Extents& box, int n, index_t& v, double& w) const {
    const int a = n % Kernel::support, b = n / Kernel::support % Kernel::support;
    const int c = n / (Kernel::support * Kernel::support);
    const int axis = box.slab_axis();
    int i = x.first + a, j = y.first + b, k = first_z + c;
    if (!place(box, 2, axis, k) || !place(box, 1, axis, j) || !place(box, 0, axis, i)) return false;
    v = box.index(i, j, k);
    w = x.weight[a] * y.weight[b] * weight_z[c];
    return true;
  }

 private:
  /// Puts coordinate c along `along` into the box; false when it falls outside the owned planes.
  KOKKOS_INLINE_FUNCTION static bool place(const Extents& box, int along, int slab_axis, int& c) {
    const int n = box.extent(along);
    if (along == slab_axis) return c >= 1 && c < n - 1;
    c = ((c % n) + n) % n;
    return true;
  }
};

/// Step 2 for every marker: its force density increment from the velocity interpolated with the
/// field as it stands; accumulated into the marker's total.
template <class L, class P, class Layout, class MemorySpace, class Kernel>
struct MarkerForcing {
  using T = compute_t<P>;
  using access_type = PopulationAccess<L, P, Layout, MemorySpace, StepKind::ab_pull, Features<true, true, true>>;
  access_type access;
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> field;
  LagrangianMarkers<MemorySpace> markers;

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = markers.position(m, d) - access.origin[d];
    const MarkerStencil<L::D, Kernel> stencil(p);
    double u[3] = {0, 0, 0}, rho = 0, fluid_weight = 0;
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(access.topology, n, v, w)) continue;
      const flag_t fl = access.flags(v);
      // A wall voxel in the stencil counts as fluid at rest: no velocity, no density.
      if (flags::kind(fl) == CellKind::solid) continue;
      T f[L::Q];
      access.load(v, fl, Neighbours<L::D>(v, access.topology), access.plane_spans(v), f);
      const T force[3] = {field(v, 0), field(v, 1), L::D == 3 ? field(v, 2) : T(0)};
      T r, uv[3];
      moments<L, T, true>(f, force, r, uv);
      for (int d = 0; d < 3; ++d) u[d] += w * double(uv[d]);
      rho += w * double(r);
      fluid_weight += w;
    }
    rho = fluid_weight > 0 ? rho / fluid_weight : 1.0;
    for (int d = 0; d < 3; ++d) {
      const double increment = 2.0 * rho * (markers.velocity(m, d) - u[d]);
      markers.increment(m, d) = increment;
      markers.force(m, d) += increment;
    }
  }
};

/// Step 3 for every marker: its increment times its area, spread by the kernel into the field.
/// Markers share voxels, hence atomic additions (Chen et al. §4.3.2).
template <int D, class T, class MemorySpace, class Kernel>
struct MarkerSpreading {
  Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace> field;
  LagrangianMarkers<MemorySpace> markers;
  Extents box;
  int origin[3] = {0, 0, 0};

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = markers.position(m, d) - origin[d];
    const MarkerStencil<D, Kernel> stencil(p);
    const double a = markers.area(m);
    double g[D];
    for (int d = 0; d < D; ++d) g[d] = markers.increment(m, d) * a;
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      for (int d = 0; d < D; ++d) Kokkos::atomic_add(&field(v, d), T(w * g[d]));
    }
  }
};

/// Step 1 for every marker: the voxels its kernel reached from `position` (where it was when the
/// field was last set) get the case's force `base` back. Markers that share a voxel write the
/// same value there.
template <int D, class T, class MemorySpace, class Kernel>
struct MarkerStencilReset {
  Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace> field;
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> base;
  Kokkos::View<const double* [3], Kokkos::LayoutLeft, MemorySpace> position;
  Extents box;
  int origin[3] = {0, 0, 0};

  KOKKOS_INLINE_FUNCTION void operator()(index_t m) const {
    double p[3];
    for (int d = 0; d < 3; ++d) p[d] = position(m, d) - origin[d];
    const MarkerStencil<D, Kernel> stencil(p);
    for (int n = 0; n < stencil.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!stencil.point(box, n, v, w)) continue;
      for (int d = 0; d < D; ++d) field(v, d) = base(v, d);
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

  ImmersedBoundary() = default;
  /// The body's markers (sorted into Morton order) acting on `field`, whose present values are
  /// the case's own force, restored before each step.
  ImmersedBoundary(const ImmersedBody& body, const field_type& field)
      : m_kernel(body.kernel),
        m_iterations(body.forcing_iterations),
        m_volume(body.volume),
        m_motion(body.motion),
        m_markers(body.markers.sorted()),
        m_field(field),
        m_base("karman::base_force", field.extent(0), field.extent(1)),
        m_spread_at("karman::marker_spread_at", m_markers.size()) {
    require_in_range("karman::lbm::ImmersedBoundary", "forcing_iterations", body.forcing_iterations, 1, 100);
    Kokkos::deep_copy(m_base, field);
  }

  /// Markers of the body.
  std::size_t size() const { return m_markers.size(); }
  const LagrangianMarkers<MemorySpace>& markers() const { return m_markers; }

  /// Moves the markers to time `time` and sets the field for the populations `access` reads:
  /// the case's force plus the markers' (steps 1-3 above).
  void apply(const access_type& access, double time) {
    Kokkos::deep_copy(m_markers.force, 0.0);
    const Kokkos::RangePolicy<execution_space> all(0, m_markers.size());
    dispatch_delta_kernel(m_kernel, [&](auto kernel) {
      using Kernel = decltype(kernel);
      if (m_spread) {
        MarkerStencilReset<L::D, T, MemorySpace, Kernel> reset{m_field, m_base, m_spread_at, access.topology, {}};
        for (int d = 0; d < 3; ++d) reset.origin[d] = access.origin[d];
        Kokkos::parallel_for("karman::ib_reset", all, reset);
      }
      move(time);
      const MarkerForcing<L, P, Layout, MemorySpace, Kernel> forcing{access, m_field, m_markers};
      MarkerSpreading<L::D, T, MemorySpace, Kernel> spreading{m_field, m_markers, access.topology, {}};
      for (int d = 0; d < 3; ++d) spreading.origin[d] = access.origin[d];
      for (int k = 0; k < m_iterations; ++k) {
        Kokkos::parallel_for("karman::ib_forcing", all, forcing);
        Kokkos::parallel_for("karman::ib_spreading", all, spreading);
      }
    });
    Kokkos::deep_copy(m_spread_at, m_markers.position);
    m_spread = true;
    compat::fence(execution_space(), "karman::ib_applied");
  }

  /// The force of the fluid on the body with the markers' forces of the last apply() at `time`:
  /// -sum_m F_m A_m + rho V a (rho = 1, the inertia of the fluid inside).
  std::array<double, 3> body_force(double time) const {
    std::array<double, 3> force{0, 0, 0};
    const auto markers = m_markers;
    for (int d = 0; d < L::D; ++d) {
      double sum = 0;
      Kokkos::parallel_reduce(
          "karman::ib_body_force", Kokkos::RangePolicy<execution_space>(0, markers.size()),
          KOKKOS_LAMBDA(const index_t m, double& s) { s += markers.force(m, d) * markers.area(m); }, sum);
      force[std::size_t(d)] = -sum;
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

  DeltaKernel m_kernel = DeltaKernel::roma3;
  int m_iterations = 1;
  double m_volume = 0;
  std::function<RigidMotion(double)> m_motion;
  LagrangianMarkers<MemorySpace> m_markers;
  field_type m_field;
  field_type m_base;
  /// Marker positions when the field was last set, and whether it was.
  typename LagrangianMarkers<MemorySpace>::vector_view m_spread_at;
  bool m_spread = false;
};

}  // namespace karman::lbm
