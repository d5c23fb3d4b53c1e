#pragma once
/// \file fixed_point_sum.hpp
/// Sums whose bits do not depend on the order of their terms. Floating-point addition is not
/// associative, so a sum built by atomic additions from parallel threads (the immersed boundary's
/// spreading), or split between ranks and then reduced, changes its last bits with the thread
/// count, the schedule and the decomposition. Here each term is rounded once to a multiple of
/// 2^-40 and the terms are added as 64-bit integers, which is exact and associative: the same
/// terms give the same sum in any order, on any backend (integer atomics are native on GPUs).
/// The price is an absolute resolution of 2^-40 (9.1e-13) per term and a range of 2^23 (8.4e6)
/// for the sum, which covers lattice force densities, velocities and densities (all O(1)) with
/// room to spare; a term outside the range saturates instead of wrapping.

#include <Kokkos_Core.hpp>

namespace karman::lbm {

struct FixedPointSum {
  using integer = long long;
  /// 2^40: one unit of the integer is 2^-40 of the value.
  static constexpr double scale = 1099511627776.0;
  static constexpr double unit = 1.0 / scale;
  /// |term| * scale beyond this saturates (2^62: sums of up to two such terms cannot overflow).
  static constexpr double saturation = 4611686018427387904.0;

  /// The term `x` in units of 2^-40, rounded half away from zero. NaN becomes 0: the populations
  /// that produced it carry it on, and the solver's divergence check reports it.
  KOKKOS_INLINE_FUNCTION static integer from(double x) {
    double y = x * scale;
    if (!(y == y)) return 0;
    y = y > saturation ? saturation : (y < -saturation ? -saturation : y);
    return integer(y >= 0 ? y + 0.5 : y - 0.5);
  }

  /// The value of a sum in units of 2^-40 (a power-of-two scaling: exact below 2^53 units).
  KOKKOS_INLINE_FUNCTION static double to(integer n) { return double(n) * unit; }
};

}  // namespace karman::lbm
