#pragma once
/// \file regularized_boundary.hpp
/// Regularized velocity and pressure boundaries (Latt, Chopard, Malaspinas, Deville, Michler,
/// Phys. Rev. E 77, 056703 (2008), §III.C): the unknown populations (those entering through
/// the boundary) get f_eq plus the bounced-back non-equilibrium part, then every population is
/// replaced by f_eq + w_i/(2 cs^4) Q_i : Pi_neq. The same code serves every lattice.

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/equilibrium.hpp>

namespace karman::lbm {

/// Rebuilds f of a boundary voxel from its known populations and the prescribed value; a
/// velocity boundary prescribes bv.u times `profile` (BoundaryValue::profile at the voxel).
template <class L, class T>
KOKKOS_INLINE_FUNCTION void regularize(T (&f)[L::Q], CellKind kind, const BoundaryValue& bv, T profile) {
  const int a = bv.normal_axis, s = bv.normal_sign;
  // Populations parallel to the wall, and those leaving the fluid through it (known).
  T sum_parallel = 0, sum_leaving = 0;
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const int cn = L::c(i, a) * s;
    if (cn == 0) sum_parallel += f[i];
    if (cn < 0) sum_leaving += f[i];
  }
  T rho, u[3] = {0, 0, 0};
  if (kind == CellKind::velocity_boundary) {
    for (int d = 0; d < 3; ++d) u[d] = T(bv.u[d]) * profile;
    rho = (sum_parallel + T(2) * sum_leaving) / (T(1) - u[a] * T(s));
  } else {
    rho = T(bv.rho);
    u[a] = T(s) * (T(1) - (sum_parallel + T(2) * sum_leaving) / rho);
  }
  T feq[L::Q];
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) feq[i] = equilibrium<L>(i, rho, u);
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    if (L::c(i, a) * s > 0) f[i] = feq[i] + (f[L::opposite(i)] - feq[L::opposite(i)]);
  }
  T pi[3][3] = {};
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const T neq = f[i] - feq[i];
    for (int p = 0; p < L::D; ++p)
      for (int q = 0; q < L::D; ++q) pi[p][q] += T(L::c(i, p) * L::c(i, q)) * neq;
  }
  const T trace = pi[0][0] + pi[1][1] + pi[2][2];
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    T qpi = -trace / T(3);
    for (int p = 0; p < L::D; ++p)
      for (int q = 0; q < L::D; ++q) qpi += T(L::c(i, p) * L::c(i, q)) * pi[p][q];
    f[i] = feq[i] + T(4.5) * T(L::w(i)) * qpi;
  }
}

}  // namespace karman::lbm
