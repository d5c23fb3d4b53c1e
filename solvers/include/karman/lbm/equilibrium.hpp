#pragma once
/// \file equilibrium.hpp
/// Second-order Maxwell-Boltzmann equilibrium (Qian et al. 1992).

#include <karman/lbm/lattice.hpp>

namespace karman::lbm {

/// f_i^eq = w_i rho (1 + c.u / cs2 + (c.u)^2 / (2 cs2^2) - u.u / (2 cs2)).
template <class L, class T>
KOKKOS_INLINE_FUNCTION T equilibrium(int i, T rho, const T u[3]) {
  const T cu = T(L::c(i, 0)) * u[0] + T(L::c(i, 1)) * u[1] + T(L::c(i, 2)) * u[2];
  const T uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return T(L::w(i)) * rho * (T(1) + T(3) * cu + T(4.5) * cu * cu - T(1.5) * uu);
}

}  // namespace karman::lbm
