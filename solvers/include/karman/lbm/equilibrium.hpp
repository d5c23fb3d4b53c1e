#pragma once
/// \file equilibrium.hpp
/// Second-order Maxwell-Boltzmann equilibrium (Qian et al. 1992).

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/lattice.hpp>

namespace karman::lbm {

/// c_i . u, the c = 0 terms skipped rather than multiplied: 0 * u cannot be dropped under IEEE
/// rules, so each would cost a multiply-add (about one per population in D3Q19, as many as the
/// weight shifts of FP16 storage). The same bits for finite u (an added zero changes at most the
/// sign of a zero sum, which 1 + 3 cu and cu^2 do not see).
template <class L, class T>
KOKKOS_INLINE_FUNCTION T dot_c(int i, const T u[3]) {
  T cu = 0;
  bool first = true;
  KARMAN_UNROLL
  for (int d = 0; d < 3; ++d) {
    if (L::c(i, d) == 0) continue;
    const T term = L::c(i, d) > 0 ? u[d] : -u[d];
    cu = first ? term : cu + term;
    first = false;
  }
  return cu;
}

/// f_i^eq = w_i rho (1 + c.u / cs2 + (c.u)^2 / (2 cs2^2) - u.u / (2 cs2)).
template <class L, class T>
KOKKOS_INLINE_FUNCTION T equilibrium(int i, T rho, const T u[3]) {
  const T cu = dot_c<L>(i, u);
  const T uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return T(L::w(i)) * rho * (T(1) + T(3) * cu + T(4.5) * cu * cu - T(1.5) * uu);
}

}  // namespace karman::lbm
