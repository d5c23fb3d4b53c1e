#pragma once
/// \file moments_kernel.hpp
/// Density and velocity of populations (Guo 2002's half-force correction), as a function the
/// stream-collide kernel inlines and as the kernel that gives moments() of every grid.

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/population_access.hpp>

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// Density and velocity u = (sum c f + F/2) / rho of the populations f (Guo 2002).
/// Sums go to locals (a `rho` reference could alias f, forcing a store per population on
/// CPUs), and c_i = 0 terms are skipped rather than multiplied: 0 * f cannot be dropped under
/// IEEE rules, so it would cost a multiply-add each. The sums equal those of c * f bitwise
/// (but for the sign of an exact zero).
template <class L, class T, bool Forced>
KOKKOS_INLINE_FUNCTION void moments(const T (&f)[L::Q], const T force[3], T& rho, T (&u)[3]) {
  T r = 0;
  T m[3] = {0, 0, 0};
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    r += f[i];
    KARMAN_UNROLL
    for (int d = 0; d < 3; ++d) {
      if (L::c(i, d) > 0) m[d] += f[i];
      if (L::c(i, d) < 0) m[d] -= f[i];
    }
  }
  rho = r;
  const T inv_rho = T(1) / r;
  for (int d = 0; d < 3; ++d) u[d] = (Forced ? m[d] + T(0.5) * force[d] : m[d]) * inv_rho;
}

/// Density and velocity of every owned voxel as the next collision will see them; walls get 0.
template <class L, class P, class Layout, class MemorySpace, StepKind Kind, class Feat, class N = Neighbours<L::D>>
struct Moments {
  using T = compute_t<P>;
  PopulationAccess<L, P, Layout, MemorySpace, Kind, Feat, N> access;
  Kokkos::View<double*, MemorySpace> rho_out;                     ///< indexed by v - first
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> u_out;  ///< (v - first, axis)
  index_t first = 0;
  T force[3] = {0, 0, 0};
  VoxelForce<T, MemorySpace, Feat::force_field> voxel_force;

  KARMAN_KERNEL_BODY void operator()(index_t v) const {
    const index_t k = v - first;
    flag_t fl = 0;
    if constexpr (Feat::flags) {
      fl = access.flags(v);
      if (flags::kind(fl) == CellKind::solid) {
        rho_out(k) = 0;
        for (int d = 0; d < 3; ++d) u_out(k, d) = 0;
        return;
      }
    }
    const N s(v, access.topology);
    T f[L::Q];
    access.load(v, fl, s, access.plane_spans(v), f);
    T rho, u[3];
    if constexpr (Feat::force_field) {
      T own[3];
      voxel_force.template at<L::D>(v, own);
      moments<L, T, true>(f, own, rho, u);
    } else {
      moments<L, T, Feat::forced>(f, force, rho, u);
    }
    rho_out(k) = double(rho);
    for (int d = 0; d < 3; ++d) u_out(k, d) = double(u[d]);
  }
};

}  // namespace karman::lbm
