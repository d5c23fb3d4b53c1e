#pragma once
/// \file collision.hpp
/// Collision operators with the Guo body force (Guo, Zheng, Shi 2002), applied in registers
/// by the fused kernel. Each is a tag with a static collide(); the kernel is a template on it.

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/equilibrium.hpp>

namespace karman::lbm {

/// Relaxation parameters of a run.
struct RelaxationParams {
  double omega = 1.0;           ///< 1/tau, relaxation rate of the symmetric (viscous) moments
  double trt_magic = 3.0 / 16;  ///< TRT magic parameter Lambda = (tau+ - 1/2)(tau- - 1/2)
  double force[3] = {0, 0, 0};  ///< body force density per voxel (lattice units)
};

/// Guo source term part of population i: w_i [(c - u)/cs2 + (c.u) c / cs2^2] . F, split into
/// its symmetric (even in c) and antisymmetric (odd in c) halves for TRT.
template <class L, class T>
KOKKOS_INLINE_FUNCTION void guo_source(int i, const T u[3], const T F[3], T& even, T& odd) {
  const T cu = T(L::c(i, 0)) * u[0] + T(L::c(i, 1)) * u[1] + T(L::c(i, 2)) * u[2];
  const T cF = T(L::c(i, 0)) * F[0] + T(L::c(i, 1)) * F[1] + T(L::c(i, 2)) * F[2];
  const T uF = u[0] * F[0] + u[1] * F[1] + u[2] * F[2];
  even = T(L::w(i)) * (T(9) * cu * cF - T(3) * uF);
  odd = T(L::w(i)) * T(3) * cF;
}

/// Single-relaxation-time BGK: f* = f - omega (f - f^eq) + (1 - omega/2) S.
struct BGK {
  static constexpr const char* name = "bgk";

  /// Relaxes f in place towards the equilibrium of (rho, u).
  template <class L, class T, bool Forced>
  KOKKOS_INLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3], T omega, T) {
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      T post = f[i] - omega * (f[i] - equilibrium<L>(i, rho, u));
      if constexpr (Forced) {
        T even, odd;
        guo_source<L>(i, u, force, even, odd);
        post += (T(1) - T(0.5) * omega) * (even + odd);
      }
      f[i] = post;
    }
  }
  /// BGK has one rate.
  static double antisymmetric_rate(const RelaxationParams& p) { return p.omega; }
};

/// Two-relaxation-time (Ginzburg 2008): symmetric part relaxes with omega+ = omega, the
/// antisymmetric with omega- chosen from the magic parameter; walls then sit exactly half-way
/// for Lambda = 3/16 independently of viscosity.
struct TRT {
  static constexpr const char* name = "trt";

  /// Relaxes f in place; pairs (i, opposite(i)) are handled together.
  template <class L, class T, bool Forced>
  KOKKOS_INLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3], T omega_plus,
                                             T omega_minus) {
    T post[L::Q];
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const int o = L::opposite(i);
      const T feq_i = equilibrium<L>(i, rho, u), feq_o = equilibrium<L>(o, rho, u);
      const T f_plus = T(0.5) * (f[i] + f[o]), f_minus = T(0.5) * (f[i] - f[o]);
      const T eq_plus = T(0.5) * (feq_i + feq_o), eq_minus = T(0.5) * (feq_i - feq_o);
      T p = f[i] - omega_plus * (f_plus - eq_plus) - omega_minus * (f_minus - eq_minus);
      if constexpr (Forced) {
        T even, odd;
        guo_source<L>(i, u, force, even, odd);
        p += (T(1) - T(0.5) * omega_plus) * even + (T(1) - T(0.5) * omega_minus) * odd;
      }
      post[i] = p;
    }
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) f[i] = post[i];
  }
  /// omega- from Lambda = (1/omega+ - 1/2)(1/omega- - 1/2).
  static double antisymmetric_rate(const RelaxationParams& p) {
    return 1.0 / (p.trt_magic / (1.0 / p.omega - 0.5) + 0.5);
  }
};

}  // namespace karman::lbm
