#pragma once
/// \file d3q19.hpp
/// D3Q19: the D3Q27 directions without the 8 corners, in the same order (lattice.hpp).

#include <karman/lbm/lattice.hpp>

namespace karman::lbm {

/// D3Q19: (c_z, c_y, c_x) lexicographic over the 19 vectors with at most two non-zero components.
struct D3Q19 : LatticeBase<3, 19, 5> {
  static constexpr const char* name = "d3q19";
  /// Component `axis` (0 = x, 1 = y, 2 = z) of velocity i.
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int axis) {
    // The D3Q27 index of each D3Q19 direction.
    constexpr int from27[19] = {1, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 21, 22, 23, 25};
    const int j = from27[i];
    return axis == 0 ? j % 3 - 1 : (axis == 1 ? j / 3 % 3 - 1 : j / 9 - 1);
  }
  /// Weight of velocity i: 1/3 rest, 1/18 axis, 1/36 edge.
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    const int n = (c(i, 0) != 0) + (c(i, 1) != 0) + (c(i, 2) != 0);
    return n == 0 ? 1.0 / 3.0 : (n == 1 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
};

}  // namespace karman::lbm
