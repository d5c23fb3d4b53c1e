#pragma once
/// \file moment_transforms.hpp
/// Maps between populations and moments for the multiple-relaxation-time collisions:
///  - raw moments on a non-orthogonal monomial basis c_x^a c_y^b c_z^c, for D2Q9 and D3Q19,
///    with the inverse matrix computed exactly in rational arithmetic at compile time (which
///    also proves the basis independent on the lattice);
///  - central moments sum_i f_i (c_ix - u_x)^a (c_iy - u_y)^b (c_iz - u_z)^c on the tensor-product
///    lattices D2Q9 and D3Q27, one 3-point transform per axis (Geier et al. 2015, §3, the
///    "chimera" transform), a few hundred flops instead of a Q x Q matrix product.
/// Every table is a constant expression read at compile-time indices (static_for), so a zero
/// entry costs no instruction and device code reads no host table.

#include <karman/lbm/lattices.hpp>

#include <type_traits>
#include <utility>

namespace karman::lbm {

namespace detail {
template <class F, int... I>
KOKKOS_FORCEINLINE_FUNCTION constexpr void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
}  // namespace detail

/// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1: the index is a constant
/// expression inside f, so tables read with it fold into the instruction stream.
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION constexpr void static_for(F&& f) {
  detail::static_for_impl(f, std::make_integer_sequence<int, N>{});
}

/// The monomial basis of the raw moments of lattice L: moment k is sum_i f_i c_ix^a c_iy^b c_iz^c
/// with (a, b, c) = exponent(k, axis). Ordered by degree: density, momentum, second order, then
/// higher. Defined for the lattices that the raw-moment MRT supports.
template <class L>
struct MonomialBasis;

/// D2Q9: 1, x, y, xx, yy, xy, xxy, xyy, xxyy.
template <>
struct MonomialBasis<D2Q9> {
  KOKKOS_INLINE_FUNCTION static constexpr int exponent(int k, int axis) {
    constexpr int e[9][2] = {{0, 0}, {1, 0}, {0, 1}, {2, 0}, {0, 2}, {1, 1}, {2, 1}, {1, 2}, {2, 2}};
    return axis < 2 ? e[k][axis] : 0;
  }
};

/// D3Q19: 1; x, y, z; xx, yy, zz, xy, xz, yz; xxy, xxz, xyy, yyz, xzz, yzz;
/// xxyy, xxzz, yyzz.
template <>
struct MonomialBasis<D3Q19> {
  KOKKOS_INLINE_FUNCTION static constexpr int exponent(int k, int axis) {
    constexpr int e[19][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2},
                              {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {2, 1, 0}, {2, 0, 1}, {1, 2, 0}, {0, 2, 1},
                              {1, 0, 2}, {0, 1, 2}, {2, 2, 0}, {2, 0, 2}, {0, 2, 2}};
    return e[k][axis];
  }
};

/// Whether lattice L has a raw-moment basis (and so the raw-moment MRT).
template <class L, class = void>
inline constexpr bool has_monomial_basis = false;
template <class L>
inline constexpr bool has_monomial_basis<L, std::void_t<decltype(MonomialBasis<L>::exponent(0, 0))>> = true;

/// Whether lattice L is the tensor product of D1Q3 along each axis, with directions numbered
/// i = sum_axis 3^axis (c_axis + 1): the lattices with a central-moment transform.
template <class L>
inline constexpr bool is_tensor_product_lattice = L::Q == (L::D == 2 ? 9 : 27);

namespace detail {

/// An exact fraction for the compile-time inverse (entries stay small: denominators up to 8).
struct Fraction {
  long long num = 0, den = 1;
};
constexpr long long gcd(long long a, long long b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}
constexpr Fraction reduced(long long num, long long den) {
  if (den < 0) num = -num, den = -den;
  const long long g = gcd(num, den);
  return g > 1 ? Fraction{num / g, den / g} : Fraction{num, den};
}
constexpr Fraction operator-(Fraction a, Fraction b) { return reduced(a.num * b.den - b.num * a.den, a.den * b.den); }
constexpr Fraction operator*(Fraction a, Fraction b) { return reduced(a.num * b.num, a.den * b.den); }
constexpr Fraction operator/(Fraction a, Fraction b) { return reduced(a.num * b.den, a.den * b.num); }

/// c^e for c in {-1, 0, 1}, with 0^0 = 1.
KOKKOS_INLINE_FUNCTION constexpr int power(int c, int e) { return e == 0 ? 1 : (e == 1 ? c : c * c); }

/// Q x Q matrix of doubles.
template <int Q>
struct Matrix {
  double a[Q][Q] = {};
};

/// M^-1 of the monomial basis, by Gauss-Jordan elimination in exact fractions; a singular
/// basis stops the compile (the constant expression divides by zero).
template <class L>
constexpr Matrix<L::Q> inverse_moment_matrix() {
  constexpr int Q = L::Q;
  Fraction m[Q][2 * Q] = {};
  for (int k = 0; k < Q; ++k) {
    for (int i = 0; i < Q; ++i) {
      int v = 1;
      for (int axis = 0; axis < 3; ++axis) v *= power(L::c(i, axis), MonomialBasis<L>::exponent(k, axis));
      m[k][i] = {v, 1};
    }
    m[k][Q + k] = {1, 1};
  }
  for (int col = 0; col < Q; ++col) {
    int pivot = col;
    while (m[pivot][col].num == 0) ++pivot;
    for (int j = 0; j < 2 * Q; ++j) {
      const Fraction t = m[col][j];
      m[col][j] = m[pivot][j];
      m[pivot][j] = t;
    }
    const Fraction p = m[col][col];
    for (int j = 0; j < 2 * Q; ++j) m[col][j] = m[col][j] / p;
    for (int r = 0; r < Q; ++r) {
      if (r == col || m[r][col].num == 0) continue;
      const Fraction factor = m[r][col];
      for (int j = 0; j < 2 * Q; ++j) m[r][j] = m[r][j] - factor * m[col][j];
    }
  }
  Matrix<Q> inverse;
  for (int i = 0; i < Q; ++i)
    for (int k = 0; k < Q; ++k) inverse.a[i][k] = double(m[i][Q + k].num) / double(m[i][Q + k].den);
  return inverse;
}

template <class L>
inline constexpr Matrix<L::Q> moment_inverse = inverse_moment_matrix<L>();

}  // namespace detail

/// Raw moments on the monomial basis of L: M and its exact inverse, as constant expressions.
template <class L>
struct RawMoments {
  static_assert(has_monomial_basis<L>, "RawMoments: the lattice has no monomial basis (MonomialBasis<L>)");
  static constexpr int Q = L::Q;
  /// Entry (k, i) of M: c_ix^a c_iy^b c_iz^c, one of -1, 0, 1.
  KOKKOS_INLINE_FUNCTION static constexpr int matrix(int k, int i) {
    int v = 1;
    for (int axis = 0; axis < 3; ++axis) v *= detail::power(L::c(i, axis), MonomialBasis<L>::exponent(k, axis));
    return v;
  }
  /// Order along `axis` of moment k.
  KOKKOS_INLINE_FUNCTION static constexpr int exponent(int k, int axis) { return MonomialBasis<L>::exponent(k, axis); }
  /// Entry (i, k) of M^-1.
  KOKKOS_INLINE_FUNCTION static constexpr double inverse(int i, int k) { return detail::moment_inverse<L>.a[i][k]; }
  /// Order a + b + c of moment k.
  KOKKOS_INLINE_FUNCTION static constexpr int order(int k) { return exponent(k, 0) + exponent(k, 1) + exponent(k, 2); }

  /// m = M g; M holds only -1, 0, 1, so this is additions alone.
  template <class T>
  KOKKOS_INLINE_FUNCTION static void forward(const T (&g)[Q], T (&m)[Q]) {
    static_for<Q>([&](auto k) {
      T sum = 0;
      static_for<Q>([&](auto i) {
        constexpr int entry = matrix(decltype(k)::value, decltype(i)::value);
        if constexpr (entry == 1) sum += g[decltype(i)::value];
        if constexpr (entry == -1) sum -= g[decltype(i)::value];
      });
      m[decltype(k)::value] = sum;
    });
  }
  /// f += M^-1 dm, skipping the zero entries of M^-1.
  template <class T>
  KOKKOS_INLINE_FUNCTION static void add_backward(const T (&dm)[Q], T (&f)[Q]) {
    static_for<Q>([&](auto i) {
      T sum = 0;
      static_for<Q>([&](auto k) {
        constexpr double entry = inverse(decltype(i)::value, decltype(k)::value);
        if constexpr (entry != 0) sum += T(entry) * dm[decltype(k)::value];
      });
      f[decltype(i)::value] += sum;
    });
  }
};

/// Central moments on a tensor-product lattice: slot a + 3b + 9c holds the moment of orders
/// (a, b, c) along (x, y, z).
template <class L>
struct CentralMoments {
  static_assert(is_tensor_product_lattice<L>, "CentralMoments: the lattice is not a tensor product of D1Q3");
  static constexpr int Q = L::Q;
  /// Order along `axis` of the moment in slot k (the base-3 digit of k).
  KOKKOS_INLINE_FUNCTION static constexpr int exponent(int k, int axis) {
    return (axis == 0 ? k : (axis == 1 ? k / 3 : k / 9)) % 3;
  }
  /// Total order of the moment in slot k.
  KOKKOS_INLINE_FUNCTION static constexpr int order(int k) {
    return exponent(k, 0) + exponent(k, 1) + (L::D == 3 ? exponent(k, 2) : 0);
  }

  /// In place, populations to central moments about u: along each axis, the three populations
  /// c = -1, 0, +1 of a line become the moments of order 0, 1, 2 about u_axis.
  template <class T>
  KOKKOS_INLINE_FUNCTION static void forward(T (&f)[Q], const T u[3]) {
    static_for<L::D>([&](auto axis) {
      constexpr int stride = decltype(axis)::value == 0 ? 1 : (decltype(axis)::value == 1 ? 3 : 9);
      const T v = u[decltype(axis)::value];
      static_for<Q / 3>([&](auto line) {
        constexpr int base = decltype(line)::value % stride + decltype(line)::value / stride * 3 * stride;
        const T lo = f[base], mid = f[base + stride], hi = f[base + 2 * stride];
        const T k0 = lo + mid + hi, k1 = hi - lo;
        f[base] = k0;
        f[base + stride] = k1 - v * k0;
        f[base + 2 * stride] = (hi + lo) - T(2) * v * k1 + v * v * k0;
      });
    });
  }
  /// In place, central moments about u back to populations (the inverse of forward()).
  template <class T>
  KOKKOS_INLINE_FUNCTION static void backward(T (&f)[Q], const T u[3]) {
    static_for<L::D>([&](auto axis) {
      constexpr int stride = decltype(axis)::value == 0 ? 1 : (decltype(axis)::value == 1 ? 3 : 9);
      const T v = u[decltype(axis)::value];
      static_for<Q / 3>([&](auto line) {
        constexpr int base = decltype(line)::value % stride + decltype(line)::value / stride * 3 * stride;
        const T k0 = f[base], k1 = f[base + stride], k2 = f[base + 2 * stride];
        // Raw moments of the line: first m1 = k1 + u k0, second m2 = k2 + 2 u m1 - u^2 k0.
        const T m1 = k1 + v * k0, m2 = k2 + T(2) * v * m1 - v * v * k0;
        f[base] = T(0.5) * (m2 - m1);
        f[base + stride] = k0 - m2;
        f[base + 2 * stride] = T(0.5) * (m2 + m1);
      });
    });
  }
};

}  // namespace karman::lbm
