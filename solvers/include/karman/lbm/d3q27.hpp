#pragma once
/// \file d3q27.hpp
/// D3Q27; directions in the order of lattice.hpp.

#include <karman/lbm/lattice.hpp>

namespace karman::lbm {

/// D3Q27: i = 9 (c_z + 1) + 3 (c_y + 1) + (c_x + 1).
struct D3Q27 : LatticeBase<3, 27, 9> {
  static constexpr const char* name = "d3q27";
  /// Component `axis` (0 = x, 1 = y, 2 = z) of velocity i.
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int axis) {
    return axis == 0 ? i % 3 - 1 : (axis == 1 ? i / 3 % 3 - 1 : i / 9 - 1);
  }
  /// Weight of velocity i: 8/27 rest, 2/27 axis, 1/54 edge, 1/216 corner.
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    const int n = (i % 3 != 1) + (i / 3 % 3 != 1) + (i / 9 != 1);
    return n == 0 ? 8.0 / 27.0 : (n == 1 ? 2.0 / 27.0 : (n == 2 ? 1.0 / 54.0 : 1.0 / 216.0));
  }
};

}  // namespace karman::lbm
