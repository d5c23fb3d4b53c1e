// The 16-bit storage formats of float16.hpp (Lehmann et al. 2022, §2.3: FP16S is IEEE binary16,
// FP16C has 4 exponent and 11 mantissa bits, bias 15, no infinity or NaN): every 16-bit word
// decodes to the value its fields define, computed here independently with ldexp; encoding is
// round to nearest, ties to even, checked against a nearest-value search over all 65536 words;
// range, subnormals, overflow and NaN behave as the header documents. On a GPU build the
// kernels' conversions (hardware instructions for binary16) give the host's bits.
#include <karman/core/float16.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using karman::float16_decode;
using karman::float16_encode;
using karman::Float16Format;

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

/// The value of word h from the format's definition, in double: (-1)^s 2^(e - 15) (1 + m / 2^M)
/// for e > 0, (-1)^s 2^(-14) m / 2^M for e = 0; binary16's e = 31 is infinity or NaN.
template <Float16Format F>
double reference_value(std::uint16_t h) {
  const int m_bits = F == Float16Format::ieee ? 10 : 11;
  const int e = (h & 0x7FFF) >> m_bits, m = h & ((1 << m_bits) - 1);
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (F == Float16Format::ieee && e == 31) return m == 0 ? sign * HUGE_VAL : std::nan("");
  if (e == 0) return sign * std::ldexp(double(m), -14 - m_bits);
  return sign * std::ldexp(1.0 + std::ldexp(double(m), -m_bits), e - 15);
}

template <Float16Format F>
void expect_decode_matches_definition() {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float got = float16_decode<F>(std::uint16_t(h));
    const double want = reference_value<F>(std::uint16_t(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      ASSERT_EQ(double(got), want) << std::hex << h;
      ASSERT_EQ(std::signbit(got), bool(h & 0x8000)) << std::hex << h;
    }
  }
}

template <Float16Format F>
void expect_every_word_round_trips() {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h)
    ASSERT_EQ(float16_encode<F>(float16_decode<F>(std::uint16_t(h))), h) << std::hex << h;
}

/// Nearest-value search: the positive finite words in value order, the encoding of a
/// magnitude a is the nearer of its two neighbours, the one with an even word on a tie.
template <Float16Format F>
std::uint16_t reference_encode(float x, const std::vector<std::uint16_t>& positive) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(double(x));
  const auto above = std::lower_bound(positive.begin(), positive.end(), a,
                                      [](std::uint16_t h, double v) { return double(float16_decode<F>(h)) < v; });
  if (above == positive.begin()) return sign | *above;
  const std::uint16_t hi = above == positive.end() ? 0 : *above, lo = *(above - 1);
  if (above == positive.end()) {
    // Past the largest finite value: binary16 rounds to infinity from the midpoint between
    // 65504 and 2^16 on (a tie goes to the even word, infinity); the custom format saturates.
    if (F == Float16Format::custom) return sign | lo;
    return sign | (a < 65520.0 ? lo : std::uint16_t(0x7C00));
  }
  const double d_lo = a - double(float16_decode<F>(lo)), d_hi = double(float16_decode<F>(hi)) - a;
  if (d_lo < d_hi) return sign | lo;
  if (d_hi < d_lo) return sign | hi;
  return sign | ((lo & 1) ? hi : lo);
}

/// The positive finite words of format F in value order.
template <Float16Format F>
std::vector<std::uint16_t> positive_words() {
  std::vector<std::uint16_t> positive;
  for (std::uint16_t h = 0; h < 0x7C00 || (F == Float16Format::custom && h <= 0x7FFF); ++h) positive.push_back(h);
  return positive;
}

/// Floats that probe an encoder of format F: every word's value, the midpoint to the next word
/// (a tie) and a float either side of it, both signs; floats over the whole range; infinity,
/// the smallest float subnormal and the edges of the range.
template <Float16Format F>
std::vector<float> encoder_probes(const std::vector<std::uint16_t>& positive) {
  std::vector<float> probes;
  // Every word's value, the midpoint to the next word (a tie) and a float either side of it.
  for (std::size_t k = 0; k + 1 < positive.size(); ++k) {
    const float v = float16_decode<F>(positive[k]), next = float16_decode<F>(positive[k + 1]);
    const float mid = float((double(v) + double(next)) / 2);
    for (float p : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 4.0f)}) {
      probes.push_back(p);
      probes.push_back(-p);
    }
  }
  // And floats spread over the whole range, infinities and subnormal floats included.
  for (std::uint64_t b = 0; b < 0x7F800001u; b += 4093) probes.push_back(from_bits(std::uint32_t(b)));
  for (float p : {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(), 65520.0f, 2.0f,
                  1.999755859375f})
    probes.push_back(p);
  return probes;
}

template <Float16Format F>
void expect_rounding_to_nearest_even() {
  const std::vector<std::uint16_t> positive = positive_words<F>();
  for (float p : encoder_probes<F>(positive))
    ASSERT_EQ(float16_encode<F>(p), reference_encode<F>(p, positive))
        << p << " (float bits " << std::hex << bits(p) << ")";
}

TEST(Float16, DecodeMatchesTheFormatDefinitionForEveryWord) {
  expect_decode_matches_definition<Float16Format::ieee>();
  expect_decode_matches_definition<Float16Format::custom>();
}

TEST(Float16, EveryWordRoundTripsBitwise) {
  expect_every_word_round_trips<Float16Format::ieee>();
  expect_every_word_round_trips<Float16Format::custom>();
}

TEST(Float16, EncodeRoundsToNearestEven) {
  expect_rounding_to_nearest_even<Float16Format::ieee>();
  expect_rounding_to_nearest_even<Float16Format::custom>();
}

/// Encodes the probes and decodes every word in a kernel of the default execution space and
/// expects the host's words and float bits (NaN words and NaN floats with payloads included).
template <Float16Format F>
void expect_device_matches_host() {
  std::vector<float> probes = encoder_probes<F>(positive_words<F>());
  for (std::uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFFC01234u, 0x7FBFFFFFu}) probes.push_back(from_bits(nan));
  const int n = int(probes.size());
  Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host_probes(probes.data(), n);
  Kokkos::View<float*> x("probes", n);
  Kokkos::deep_copy(x, host_probes);
  Kokkos::View<std::uint16_t*> encoded("encoded", n);
  Kokkos::View<float*> decoded("decoded", 0x10000);
  Kokkos::parallel_for(
      "karman::test::float16_device", Kokkos::RangePolicy<>(0, n > 0x10000 ? n : 0x10000), KOKKOS_LAMBDA(int i) {
        if (i < n) encoded(i) = float16_encode<F>(x(i));
        if (i < 0x10000) decoded(i) = float16_decode<F>(std::uint16_t(i));
      });
  const auto encoded_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), encoded);
  const auto decoded_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), decoded);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(encoded_host(i), float16_encode<F>(probes[i])) << "float bits " << std::hex << bits(probes[i]);
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h)
    ASSERT_EQ(bits(decoded_host(h)), bits(float16_decode<F>(std::uint16_t(h)))) << "word " << std::hex << h;
}

TEST(Float16, KernelConversionsGiveTheHostBits) {
  expect_device_matches_host<Float16Format::ieee>();
  expect_device_matches_host<Float16Format::custom>();
}

/// Offsets the kernels shift by: the D3Q19 and D3Q27 weights.
const std::vector<float> shift_offsets = {1.0f / 3, 1.0f / 18, 1.0f / 36, 8.0f / 27, 2.0f / 27, 1.0f / 54, 1.0f / 216};

/// float16_decode_plus and float16_encode_minus, on the host and in a kernel, against the two
/// steps on the host: the same bits, but that a NaN may lose its payload (on CUDA devices a NaN
/// is the canonical one after any FP32 operation, which the shortcut there relies on).
template <Float16Format F>
void expect_shifted_conversions_match_two_steps() {
  std::vector<float> probes = encoder_probes<F>(positive_words<F>());
  for (std::uint32_t nan : {0x7FC00000u, 0x7F800001u, 0xFFC01234u}) probes.push_back(from_bits(nan));
  const int n = int(probes.size()), shifts = int(shift_offsets.size());
  Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host_probes(probes.data(), n);
  Kokkos::View<float*> x("probes", n);
  Kokkos::deep_copy(x, host_probes);
  Kokkos::View<float*> w("offsets", shifts);
  Kokkos::deep_copy(w, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                           shift_offsets.data(), shifts));
  Kokkos::View<std::uint16_t**, Kokkos::LayoutRight> encoded("encoded", shifts, n);
  Kokkos::View<float**, Kokkos::LayoutRight> decoded("decoded", shifts, 0x10000);
  const int items = n > 0x10000 ? n : 0x10000;
  Kokkos::parallel_for(
      "karman::test::float16_shifted", Kokkos::RangePolicy<>(0, items), KOKKOS_LAMBDA(int i) {
        for (int k = 0; k < shifts; ++k) {
          if (i < n) encoded(k, i) = karman::float16_encode_minus<F>(x(i), w(k));
          if (i < 0x10000) decoded(k, i) = karman::float16_decode_plus<F>(std::uint16_t(i), w(k));
        }
      });
  const auto encoded_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), encoded);
  const auto decoded_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), decoded);
  // The word of a NaN difference: a binary16 NaN, or the custom format's largest magnitude (it
  // has no NaN), of either sign as a payload's sign may be lost.
  const auto nan_word = [](std::uint16_t h) {
    return F == Float16Format::ieee ? (h & 0x7FFF) > 0x7C00 : (h & 0x7FFF) == 0x7FFF;
  };
  for (int k = 0; k < shifts; ++k) {
    const float offset = shift_offsets[k];
    for (int i = 0; i < n; ++i) {
      const std::uint16_t want = float16_encode<F>(probes[i] - offset);
      const std::uint16_t host = karman::float16_encode_minus<F>(probes[i], offset);
      if (std::isnan(probes[i] - offset)) {
        ASSERT_TRUE(nan_word(host) && nan_word(encoded_host(k, i))) << "float bits " << std::hex << bits(probes[i]);
      } else {
        ASSERT_EQ(host, want) << "float bits " << std::hex << bits(probes[i]) << " offset " << offset;
        ASSERT_EQ(encoded_host(k, i), want) << "float bits " << std::hex << bits(probes[i]) << " offset " << offset;
      }
    }
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
      const float want = float16_decode<F>(std::uint16_t(h)) + offset;
      const float host = karman::float16_decode_plus<F>(std::uint16_t(h), offset);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(host) && std::isnan(decoded_host(k, h))) << "word " << std::hex << h;
      } else {
        ASSERT_EQ(bits(host), bits(want)) << "word " << std::hex << h << " offset " << offset;
        ASSERT_EQ(bits(decoded_host(k, h)), bits(want)) << "word " << std::hex << h << " offset " << offset;
      }
    }
  }
}

TEST(Float16, ShiftedConversionsGiveTheTwoStepsBits) {
  expect_shifted_conversions_match_two_steps<Float16Format::ieee>();
  expect_shifted_conversions_match_two_steps<Float16Format::custom>();
}

// Hand-picked values, worked out from the bit layouts by hand.
TEST(Float16, HandPickedIeee) {
  constexpr auto S = Float16Format::ieee;
  EXPECT_EQ(float16_encode<S>(1.0f), 0x3C00);
  EXPECT_EQ(float16_encode<S>(-2.0f), 0xC000);
  EXPECT_EQ(float16_encode<S>(1.0f + 0x1p-11f), 0x3C00);  // tie, even neighbour below
  EXPECT_EQ(float16_encode<S>(1.0f + 0x3p-11f), 0x3C02);  // tie, even neighbour above
  EXPECT_EQ(float16_encode<S>(0.1f), 0x2E66);
  EXPECT_EQ(float16_encode<S>(65504.0f), 0x7BFF);    // largest finite
  EXPECT_EQ(float16_encode<S>(65519.996f), 0x7BFF);  // below the midpoint to 2^16
  EXPECT_EQ(float16_encode<S>(65520.0f), 0x7C00);    // the midpoint: ties to even, infinity
  EXPECT_EQ(float16_encode<S>(-1e10f), 0xFC00);
  EXPECT_EQ(float16_encode<S>(0x1p-14f), 0x0400);  // smallest normal
  EXPECT_EQ(float16_encode<S>(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float16_encode<S>(0x1p-25f), 0x0000);  // half of it: ties to the even zero
  EXPECT_EQ(float16_encode<S>(0x1.8p-25f), 0x0001);
  EXPECT_EQ(float16_encode<S>(-0x1p-30f), 0x8000);      // underflow keeps the sign
  EXPECT_EQ(float16_encode<S>(std::nanf("")), 0x7E00);  // quiet NaN
  EXPECT_EQ(float16_decode<S>(0x3555), float(0x1.554p-2));
}

TEST(Float16, HandPickedCustom) {
  constexpr auto C = Float16Format::custom;
  EXPECT_EQ(float16_encode<C>(1.0f), 0x7800);  // exponent 15 - 15 = 0
  EXPECT_EQ(float16_encode<C>(0.5f), 0x7000);
  EXPECT_EQ(float16_encode<C>(1.0f + 0x1p-12f), 0x7800);  // tie, even neighbour below
  EXPECT_EQ(float16_encode<C>(1.0f + 0x3p-12f), 0x7802);  // tie, even neighbour above
  EXPECT_EQ(float16_encode<C>(1.99951171875f), 0x7FFF);   // largest value
  EXPECT_EQ(float16_encode<C>(2.0f), 0x7FFF);             // saturates: no infinity
  EXPECT_EQ(float16_encode<C>(-std::numeric_limits<float>::infinity()), 0xFFFF);
  EXPECT_EQ(float16_encode<C>(std::nanf("")), 0x7FFF);
  EXPECT_EQ(float16_encode<C>(0x1p-14f), 0x0800);  // smallest normal
  EXPECT_EQ(float16_encode<C>(0x1p-25f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float16_encode<C>(0x1p-26f), 0x0000);  // half of it: ties to the even zero
  EXPECT_EQ(float16_decode<C>(0x7FFF), 1.99951171875f);
  EXPECT_EQ(float16_decode<C>(0x0001), 0x1p-25f);
}

}  // namespace
