#pragma once
/// \file d2q9.hpp
/// D2Q9 (Qian, d'Humieres, Lallemand 1992); directions in the order of lattice.hpp.

#include <karman/lbm/lattice.hpp>

namespace karman::lbm {

/// D2Q9: i = 3 (c_y + 1) + (c_x + 1).
struct D2Q9 : LatticeBase<2, 9, 3> {
  static constexpr const char* name = "d2q9";
  /// Component `axis` (0 = x, 1 = y, 2 = z) of velocity i.
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int axis) {
    return axis == 0 ? i % 3 - 1 : (axis == 1 ? i / 3 - 1 : 0);
  }
  /// Weight of velocity i: 4/9 rest, 1/9 axis, 1/36 diagonal.
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    const int n = (i % 3 != 1) + (i / 3 != 1);
    return n == 0 ? 4.0 / 9.0 : (n == 1 ? 1.0 / 9.0 : 1.0 / 36.0);
  }
};

}  // namespace karman::lbm
