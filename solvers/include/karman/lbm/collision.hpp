#pragma once
/// \file collision.hpp
/// Collision operators with the Guo body force (Guo, Zheng, Shi 2002), applied in registers
/// by the fused kernel. Each is a tag with a static collide(); the kernel is a template on it.
/// A tag's `defined_for<L>` says on which lattices it exists; only those are compiled.
/// collide() is always inlined: a CPU row loop vectorises only an update that is one body
/// (for_each_row.hpp), and GCC kept MRT's out of line even under `flatten`.

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/moment_transforms.hpp>

namespace karman::lbm {

/// Relaxation parameters of a run.
struct RelaxationParams {
  double omega = 1.0;           ///< 1/tau, relaxation rate of the symmetric (viscous) moments
  double trt_magic = 3.0 / 16;  ///< TRT magic parameter Lambda = (tau+ - 1/2)(tau- - 1/2)
  double omega_bulk = 1.0;      ///< MRT, CM: rate of the trace of the second-order moments (bulk viscosity)
  double omega_high = 1.0;      ///< MRT, CM: rate of every moment of order three and higher
  double force[3] = {0, 0, 0};  ///< body force density per voxel (lattice units)
};

/// The rates a collision reads in the kernel, in its arithmetic type.
template <class T>
struct CollisionRates {
  T omega = 1;        ///< shear: the deviatoric second-order moments (viscosity)
  T omega_minus = 1;  ///< TRT: the antisymmetric part
  T omega_bulk = 1;   ///< MRT, CM: the trace of the second-order moments
  T omega_high = 1;   ///< MRT, CM: third and higher orders
};

/// The kernel rates of Collision for the run's parameters.
template <class Collision, class T>
CollisionRates<T> collision_rates(const RelaxationParams& p) {
  return {T(p.omega), T(Collision::antisymmetric_rate(p)), T(p.omega_bulk), T(p.omega_high)};
}

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
  template <class L>
  static constexpr bool defined_for = true;
  /// Whether omega_bulk and omega_high apply.
  static constexpr bool moment_rates = false;

  /// Relaxes f in place towards the equilibrium of (rho, u).
  template <class L, class T, bool Forced>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3],
                                                  const CollisionRates<T>& rates) {
    const T omega = rates.omega;
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
  template <class L>
  static constexpr bool defined_for = true;
  static constexpr bool moment_rates = false;

  /// Relaxes f in place; pairs (i, opposite(i)) are handled together.
  template <class L, class T, bool Forced>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3],
                                                  const CollisionRates<T>& rates) {
    const T omega_plus = rates.omega, omega_minus = rates.omega_minus;
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

namespace detail {

/// Turns the non-equilibrium moments d of a basis (exponent(k, axis), order(k)) into their
/// change in the collision: density and momentum are kept; the second-order moments split
/// into the trace, relaxed at omega_bulk, and the deviator, relaxed at omega (shear viscosity
/// nu = cs^2 (1/omega - 1/2), bulk viscosity from omega_bulk; Dellar 2001); every moment of
/// order three and higher relaxes at omega_high. Equal rates give -omega d for all moments,
/// the BGK collision.
template <class Basis>
KOKKOS_INLINE_FUNCTION constexpr bool diagonal_second_order(int k) {
  return Basis::order(k) == 2 &&
         (Basis::exponent(k, 0) == 2 || Basis::exponent(k, 1) == 2 || Basis::exponent(k, 2) == 2);
}

template <class Basis, class L, class T>
KOKKOS_INLINE_FUNCTION void relax_moments(T (&d)[L::Q], const CollisionRates<T>& rates) {
  T trace = 0;
  static_for<L::Q>([&](auto k) {
    if constexpr (diagonal_second_order<Basis>(decltype(k)::value)) trace += d[decltype(k)::value];
  });
  const T mean = trace * T(1.0 / L::D);
  static_for<L::Q>([&](auto k) {
    constexpr int K = decltype(k)::value;
    T& m = d[K];
    if constexpr (Basis::order(K) < 2) {
      m = 0;
    } else if constexpr (Basis::order(K) > 2) {
      m = -rates.omega_high * m;
    } else if constexpr (diagonal_second_order<Basis>(K)) {
      m = -(rates.omega * (m - mean) + rates.omega_bulk * mean);
    } else {
      m = -rates.omega * m;
    }
  });
}

}  // namespace detail

/// Raw-moment multiple-relaxation-time collision (Lallemand & Luo 2000; d'Humieres et al. 2002)
/// on a monomial basis (moment_transforms.hpp): the non-equilibrium part of f + S/2 goes to
/// moments, relaxes at the rate of its order (relax_moments), and returns,
/// f* = f + S - M^-1 D M (f - f^eq + S/2): the Guo source with (I - D/2) in moment space, which
/// equal rates turn back into BGK's (1 - omega/2) S. Defined for D2Q9 and D3Q19.
struct MRT {
  static constexpr const char* name = "mrt";
  template <class L>
  static constexpr bool defined_for = has_monomial_basis<L>;
  static constexpr bool moment_rates = true;

  /// Relaxes f in place.
  template <class L, class T, bool Forced>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3],
                                                  const CollisionRates<T>& rates) {
    using M = RawMoments<L>;
    T g[L::Q];
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      g[i] = f[i] - equilibrium<L>(i, rho, u);
      if constexpr (Forced) {
        T even, odd;
        guo_source<L>(i, u, force, even, odd);
        g[i] += T(0.5) * (even + odd);
        f[i] += even + odd;
      }
    }
    T m[L::Q];
    M::forward(g, m);
    detail::relax_moments<M, L>(m, rates);
    M::add_backward(m, f);
  }
  /// Odd moments of order three relax at omega_high, not at a TRT rate.
  static double antisymmetric_rate(const RelaxationParams& p) { return p.omega; }
};

/// Central-moment multiple-relaxation-time collision, the non-adaptive core of the ACM-MRT
/// model of Chen et al. §3, Eq. 5 (Omega = -M^-1 D M (f - f^eq), M taking moments about the
/// local velocity): the central moments of f + S/2 relax towards those of the factorised
/// equilibrium rho prod_axis {1, 0, cs^2} (Geier et al. 2015, §3; De Rosis 2017), shear and
/// bulk at their rates and every order from three up at omega_high, then f* = M^-1 k* + S/2.
/// Moments about u make the higher-order relaxation Galilean invariant, which is what keeps it
/// stable at high Reynolds numbers where BGK and raw moments are not. Equal rates give BGK
/// towards the factorised equilibrium, which differs from equilibrium.hpp's at O(u^3).
/// Defined on the tensor-product lattices D2Q9 and D3Q27.
struct CM {
  static constexpr const char* name = "cm";
  template <class L>
  static constexpr bool defined_for = is_tensor_product_lattice<L>;
  static constexpr bool moment_rates = true;

  /// Relaxes f in place.
  template <class L, class T, bool Forced>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(T (&f)[L::Q], T rho, const T u[3], const T force[3],
                                                  const CollisionRates<T>& rates) {
    T half_source[L::Q];
    if constexpr (Forced) {
      KARMAN_UNROLL
      for (int i = 0; i < L::Q; ++i) {
        T even, odd;
        guo_source<L>(i, u, force, even, odd);
        half_source[i] = T(0.5) * (even + odd);
        f[i] += half_source[i];
      }
    }
    relax_central_moments<L>(f, rho, u, rates);
    CentralMoments<L>::backward(f, u);
    if constexpr (Forced) {
      KARMAN_UNROLL
      for (int i = 0; i < L::Q; ++i) f[i] += half_source[i];
    }
  }
  /// The first half of collide(), in place: f to its central moments about u, relaxed. The
  /// second half is CentralMoments<L>::backward(f, u). Seed 002 §4.4 splits the collision into
  /// two launches at such a point to cut registers (perf/src/split_collision.cpp measures it).
  template <class L, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void relax_central_moments(T (&f)[L::Q], T rho, const T u[3],
                                                                const CollisionRates<T>& rates) {
    using K = CentralMoments<L>;
    K::forward(f, u);
    T d[L::Q];
    static_for<L::Q>([&](auto k) {
      constexpr int k_ = decltype(k)::value;
      constexpr double eq = equilibrium_factor(K::exponent(k_, 0)) * equilibrium_factor(K::exponent(k_, 1)) *
                            equilibrium_factor(K::exponent(k_, 2));
      if constexpr (eq != 0) {
        d[k_] = f[k_] - T(eq) * rho;
      } else {
        d[k_] = f[k_];
      }
    });
    detail::relax_moments<K, L>(d, rates);
    KARMAN_UNROLL
    for (int k = 0; k < L::Q; ++k) f[k] += d[k];
  }
  /// No TRT rate.
  static double antisymmetric_rate(const RelaxationParams& p) { return p.omega; }

 private:
  /// Central moment of order e of the one-dimensional factor of the equilibrium: 1, 0, cs^2.
  KOKKOS_INLINE_FUNCTION static constexpr double equilibrium_factor(int e) { return e == 0 ? 1 : (e == 1 ? 0 : cs2); }
};

}  // namespace karman::lbm
