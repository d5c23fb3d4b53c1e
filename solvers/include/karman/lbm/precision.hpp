#pragma once
/// \file precision.hpp
/// Population precisions: how a population is stored and in which type the kernel computes.
/// float and double store and compute in themselves. FP16S and FP16C store 16-bit words and
/// compute in FP32, keeping the deviation f_i - w_i from the lattice weight in storage
/// (Lehmann et al. 2022, §2.3, "DDF-shifting"): populations stay close to w_i, so their
/// deviations are small and the 16-bit exponent spends its precision on what varies. The
/// shift is compile-time: float and double never see it and keep their bits.

#include <karman/core/float16.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace karman::lbm {

/// Identity precision of an arithmetic type: stored and computed as itself.
template <class T>
struct IdentityPrecision {
  using storage = T;
  using compute = T;
  /// Whether storage holds f_i - w_i instead of f_i.
  static constexpr bool shifted = false;
  KOKKOS_INLINE_FUNCTION static T decode(T s) { return s; }
  KOKKOS_INLINE_FUNCTION static T encode(T x) { return x; }
};

/// A precision stored in a Float16Format and computed in FP32, shifted by the weights.
template <Float16Format F>
struct Float16Precision {
  using storage = std::uint16_t;
  using compute = float;
  static constexpr bool shifted = true;
  KOKKOS_INLINE_FUNCTION static float decode(std::uint16_t s) { return float16_decode<F>(s); }
  KOKKOS_INLINE_FUNCTION static std::uint16_t encode(float x) { return float16_encode<F>(x); }
  /// decode(s) + offset and encode(x - offset) in one step each (float16.hpp says why).
  KOKKOS_INLINE_FUNCTION static float decode_plus(std::uint16_t s, float offset) {
    return float16_decode_plus<F>(s, offset);
  }
  KOKKOS_INLINE_FUNCTION static std::uint16_t encode_minus(float x, float offset) {
    return float16_encode_minus<F>(x, offset);
  }
};

/// IEEE binary16 storage, FP32 arithmetic (FluidX3D's FP16S, Lehmann et al. 2022).
struct FP16S : Float16Precision<Float16Format::ieee> {
  static constexpr const char* name = "fp16s";
};
/// Custom 1-4-11 16-bit storage, FP32 arithmetic (FluidX3D's FP16C, Lehmann et al. 2022).
struct FP16C : Float16Precision<Float16Format::custom> {
  static constexpr const char* name = "fp16c";
};

/// The precision a variant type stands for: the type itself, or the identity precision of an
/// arithmetic type (float, double).
template <class P>
struct PrecisionOf {
  using type = P;
};
template <>
struct PrecisionOf<float> {
  using type = IdentityPrecision<float>;
};
template <>
struct PrecisionOf<double> {
  using type = IdentityPrecision<double>;
};

/// Shorthand for PrecisionOf<P>::type.
template <class P>
using precision_t = typename PrecisionOf<P>::type;
/// How precision P stores a population.
template <class P>
using storage_t = typename precision_t<P>::storage;
/// In which type precision P computes.
template <class P>
using compute_t = typename precision_t<P>::compute;

/// Population q of lattice L from its stored word: decode, then undo the weight shift.
template <class L, class P>
KOKKOS_INLINE_FUNCTION compute_t<P> decode_population(storage_t<P> s, int q) {
  using Pr = precision_t<P>;
  if constexpr (Pr::shifted) {
    return Pr::decode_plus(s, compute_t<P>(L::w(q)));
  } else {
    (void)q;
    return Pr::decode(s);
  }
}

/// The stored word of population q of lattice L (shifted by its weight where P shifts). Kernels
/// pass the storage slot as q, so a word is decoded with the weight it was encoded with; as
/// opposite populations have equal weights, a word also holds f_i - w_i for the population i it
/// carries, whichever slot AA keeps it in (checkpoints move between AA and AB).
template <class L, class P>
KOKKOS_INLINE_FUNCTION storage_t<P> encode_population(compute_t<P> f, int q) {
  using Pr = precision_t<P>;
  if constexpr (Pr::shifted) {
    return Pr::encode_minus(f, compute_t<P>(L::w(q)));
  } else {
    (void)q;
    return Pr::encode(f);
  }
}

}  // namespace karman::lbm
