#pragma once
/// \file float16.hpp
/// Two 16-bit floating-point storage formats and their exact conversions to and from FP32,
/// written on integer bits so that CPU, CUDA and HIP give the same bits (Kokkos' half_t is a
/// float on Kokkos 3.4 host backends, and hardware conversions differ in NaN payloads):
///  - Float16Format::ieee: IEEE 754 binary16, 1 sign, 5 exponent and 10 mantissa bits, bias 15,
///    subnormals, infinities and NaN ("FP16S" in Lehmann et al. 2022, §2.3).
///  - Float16Format::custom: 1 sign, 4 exponent and 11 mantissa bits, bias 15, subnormals, no
///    infinity or NaN: every exponent is a number, so the range is [-1.99951171875,
///    1.99951171875] with one more mantissa bit ("FP16C", Lehmann et al. 2022, §2.3; the range
///    fits LBM populations stored as deviations f - w from the lattice weights).
/// Both encoders round to nearest, ties to even (FluidX3D's FP16C encoder rounds ties away
/// from zero, so the two differ on exact ties only; the decoders agree on every word). Out of range, binary16 gives
/// ±infinity and the custom format saturates to ±1.99951171875 (it has no infinity). NaN stays a NaN of the same
/// payload in binary16 (a payload lost to the shorter mantissa becomes the quiet bit); the custom format has none and
/// stores +1.99951171875, so a diverging run shows as a density far out of range rather than as a NaN.
/// On CUDA and HIP devices binary16 uses the hardware conversion instructions (one each way
/// instead of about ten integer operations, which made the FP16S kernels instruction-bound);
/// they round the same way, and NaN words, where hardware may drop the payload, still take the
/// integer path, so device and host give the same bits for every input.
/// float16_decode_plus and float16_encode_minus are the conversions of a value shifted by a
/// float, as kernels store populations (lbm/precision.hpp); on CUDA devices they skip that NaN
/// test, which the FP32 arithmetic makes redundant there (see each).

#include <Kokkos_Core.hpp>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#elif defined(__HIPCC__)
#include <hip/hip_fp16.h>
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KARMAN_DEVICE_HALF_CONVERSIONS
#endif

#include <cstdint>
#include <cstring>

namespace karman {

/// Which 16-bit layout a float16 conversion uses.
enum class Float16Format { ieee, custom };

namespace detail {

/// The bits of a float as an integer and back (memcpy is the portable bit cast; CUDA and HIP
/// compile it to a register move).
KOKKOS_INLINE_FUNCTION std::uint32_t float_bits(float x) {
  std::uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}
KOKKOS_INLINE_FUNCTION float bits_float(std::uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace detail

/// Constants of a 16-bit format.
template <Float16Format F>
struct Float16Traits {
  /// Mantissa (fraction) bits.
  static constexpr int mantissa_bits = F == Float16Format::ieee ? 10 : 11;
  /// Exponent bias: 15 in both (Lehmann et al. 2022, §2.3, "exp-15" for FP16C).
  static constexpr int bias = 15;
  /// Whether the largest exponent means infinity and NaN (binary16) or numbers (custom).
  static constexpr bool has_inf_nan = F == Float16Format::ieee;
  /// Largest exponent field.
  static constexpr std::uint32_t max_exponent = (1u << (15 - mantissa_bits)) - 1;
  /// Bits of the largest finite magnitude.
  static constexpr std::uint16_t max_finite = has_inf_nan ? 0x7BFF : 0x7FFF;
};

/// The FP32 value of 16-bit word `h` of format F; exact (every 16-bit value is a float).
/// Branch-free, so a GPU warp decoding mixed normal and subnormal words does not diverge: the
/// word's exponent and mantissa fields are moved into a float's fields, which reads them as
/// 2^(e - 127) (1 + m / 2^M) (or, for e = 0, as the float subnormal m 2^(-126 - M)); one
/// multiplication by 2^(127 - bias) then rebiases both cases exactly (a power of two times a
/// float whose result stays normal is exact; input subnormals are honoured without fast-math).
namespace detail {

template <Float16Format F>
KOKKOS_INLINE_FUNCTION float float16_decode_bits(std::uint16_t h) {
  using Tr = Float16Traits<F>;
  constexpr int m_bits = Tr::mantissa_bits;
  static_assert(Tr::bias == 15, "the rebiasing factor below is 2^(127 - 15)");
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t fields = std::uint32_t(h & 0x7FFFu) << (23 - m_bits);
  if (Tr::has_inf_nan && fields >= (Tr::max_exponent << 23)) {
    return detail::bits_float(sign | 0x7F800000u | (fields & 0x7FFFFFu));  // infinity, NaN with its payload
  }
  // The sign goes into the float before the product (exact with either sign), so that an
  // addition after the decode can fuse with it into one multiply-add of the same bits.
  return detail::bits_float(sign | fields) * 0x1p112f;
}

}  // namespace detail

/// The 16-bit word of format F nearest to `x` (ties to even); see the file comment for range
/// and NaN. Both roundings are computed and one is selected, so a warp does not diverge
/// between normal and subnormal results (F. Giesen's "float_to_half_fast3_rtne" scheme):
///  - normal result: rebias the exponent, then round away the extra mantissa bits with the
///    carry trick t + (half - 1) + (lowest kept bit), ties to even; a carry out of the
///    mantissa correctly increments the exponent, and past the largest exponent the word is
///    infinity (binary16) or clamps to the largest finite word (custom);
///  - subnormal result (|x| below 2^(1 - bias)): adding a float of exponent chosen so that
///    its last mantissa bit weighs one 16-bit subnormal step lets the FPU's own round to
///    nearest even do the shift; the sum's low bits are the word.
namespace detail {

template <Float16Format F>
KOKKOS_INLINE_FUNCTION std::uint16_t float16_encode_bits(float x) {
  using Tr = Float16Traits<F>;
  constexpr int m_bits = Tr::mantissa_bits;
  constexpr int drop = 23 - m_bits;  // float mantissa bits that do not fit
  const std::uint32_t b = detail::float_bits(x);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  const std::uint32_t a = b & 0x7FFFFFFFu;
  if (Tr::has_inf_nan && a > 0x7F800000u) {
    const std::uint32_t payload = (a >> drop) & ((1u << m_bits) - 1);
    return std::uint16_t(sign | (Tr::max_exponent << m_bits) | (payload != 0 ? payload : 1u << (m_bits - 1)));
  }
  // Normal: a NaN of the custom format lands above the largest word and is clamped with the
  // overflows (it has no NaN).
  const std::uint32_t t = a - (std::uint32_t(127 - Tr::bias) << 23);
  const std::uint32_t rounded = (t + ((1u << (drop - 1)) - 1) + ((t >> drop) & 1u)) >> drop;
  constexpr std::uint32_t overflow = (Tr::max_exponent + (Tr::has_inf_nan ? 0 : 1)) << m_bits;
  const std::uint32_t normal = rounded >= overflow ? (Tr::has_inf_nan ? overflow : Tr::max_finite) : rounded;
  // Subnormal: 2^(1 - bias - m_bits) is one subnormal step; the magic float is 2^23 steps.
  constexpr std::uint32_t magic_bits = std::uint32_t(127 - Tr::bias - m_bits + 1 + 23) << 23;
  const float magic = detail::bits_float(magic_bits);
  const std::uint32_t subnormal = detail::float_bits(detail::bits_float(a) + magic) - magic_bits;
  // Smallest normal magnitude of the 16-bit format, 2^(1 - bias), as float bits.
  constexpr std::uint32_t min_normal = std::uint32_t(127 + 1 - Tr::bias) << 23;
  return std::uint16_t(sign | (a < min_normal ? subnormal : normal));
}

}  // namespace detail

/// The FP32 value of 16-bit word `h` of format F (see float16_decode_bits).
template <Float16Format F>
KOKKOS_INLINE_FUNCTION float float16_decode(std::uint16_t h) {
#if defined(KARMAN_DEVICE_HALF_CONVERSIONS)
  if constexpr (F == Float16Format::ieee) {
    if ((h & 0x7FFFu) > 0x7C00u) return detail::float16_decode_bits<F>(h);  // NaN: keep the payload
    return __half2float(__ushort_as_half(h));
  } else
#endif
  {
    return detail::float16_decode_bits<F>(h);
  }
}

/// The 16-bit word of format F nearest to `x`, ties to even (see float16_encode_bits).
template <Float16Format F>
KOKKOS_INLINE_FUNCTION std::uint16_t float16_encode(float x) {
#if defined(KARMAN_DEVICE_HALF_CONVERSIONS)
  if constexpr (F == Float16Format::ieee) {
    if ((detail::float_bits(x) & 0x7FFFFFFFu) > 0x7F800000u) return detail::float16_encode_bits<F>(x);  // NaN
    return __half_as_ushort(__float2half_rn(x));
  } else
#endif
  {
    return detail::float16_encode_bits<F>(x);
  }
}

/// float16_decode<F>(h) + offset, for a finite offset: how a kernel reads a value stored as its
/// deviation from `offset`. The same bits as the two steps; a NaN word gives a NaN. On CUDA
/// devices binary16 skips float16_decode's NaN test: an FP32 addition on an NVIDIA GPU returns
/// the canonical NaN 0x7FFFFFFF whatever payload its NaN operand carries (so does the hardware
/// conversion; measured on the H100, docs/performance.md §6.7), so the payload the integer path
/// keeps is lost in the addition and the sum has the same bits either way. That test was a
/// third of an FP16S update's instructions. The custom format's decode ends in an exact product,
/// which the compiler may fuse with the addition (same bits).
template <Float16Format F>
KOKKOS_INLINE_FUNCTION float float16_decode_plus(std::uint16_t h, float offset) {
#if defined(__CUDA_ARCH__)
  if constexpr (F == Float16Format::ieee) {
    return __half2float(__ushort_as_half(h)) + offset;
  } else
#endif
  {
    return float16_decode<F>(h) + offset;
  }
}

/// float16_encode<F>(x - offset), for a finite offset: how a kernel stores a value as its
/// deviation from `offset`. The same bits as the two steps, but for a NaN x on the host and on
/// HIP, which may keep a NaN payload in the difference. On CUDA devices binary16 skips
/// float16_encode's NaN test: the difference, an FP32 result, is a NaN only as the canonical
/// 0x7FFFFFFF there, which the hardware conversion turns into 0x7FFF, the word the integer path
/// gives it (docs/performance.md §6.7).
template <Float16Format F>
KOKKOS_INLINE_FUNCTION std::uint16_t float16_encode_minus(float x, float offset) {
#if defined(__CUDA_ARCH__)
  if constexpr (F == Float16Format::ieee) {
    return __half_as_ushort(__float2half_rn(x - offset));
  } else
#endif
  {
    return float16_encode<F>(x - offset);
  }
}

}  // namespace karman
