#pragma once
/// \file extents.hpp
/// A 3D box of voxels in natural order (x fastest); 2D boxes have nz = 1.

#include <karman/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>

namespace karman {

/// Signed index wide enough for any voxel or memory offset of a field.
using index_t = std::int64_t;

/// Voxel counts along x, y, z.
struct Extents {
  int nx = 1;  ///< voxels along x (fastest in memory)
  int ny = 1;  ///< voxels along y
  int nz = 1;  ///< voxels along z (slowest); 1 for 2D

  /// Number of voxels in the box.
  KOKKOS_INLINE_FUNCTION index_t size() const { return index_t(nx) * ny * nz; }
  /// Linear index of (x, y, z), x fastest.
  KOKKOS_INLINE_FUNCTION index_t index(int x, int y, int z) const { return x + index_t(nx) * (y + index_t(ny) * z); }
  /// Coordinate of voxel v along axis 0 (x), 1 (y) or 2 (z): the inverse of index().
  KOKKOS_INLINE_FUNCTION int coordinate(index_t v, int axis) const {
    return int(axis == 0 ? v % nx : axis == 1 ? v / nx % ny : v / (index_t(nx) * ny));
  }
  /// 2 when nz == 1, else 3.
  KOKKOS_INLINE_FUNCTION constexpr int dimension() const { return nz == 1 ? 2 : 3; }
  /// Extent along axis 0 (x), 1 (y) or 2 (z).
  KOKKOS_INLINE_FUNCTION int extent(int axis) const { return axis == 0 ? nx : (axis == 1 ? ny : nz); }
  /// The axis a box is cut into slabs along, the slowest one with more than one voxel: 2 (z)
  /// for 3D boxes, 1 (y) for 2D boxes. The one definition partitions, decompositions, halo
  /// exchanges and kernels share.
  KOKKOS_INLINE_FUNCTION constexpr int slab_axis() const { return dimension() == 3 ? 2 : 1; }
  /// Voxels in one plane across the slab axis (nx * ny in 3D, nx in 2D): the linear-index
  /// stride of one step along the slab axis, and what a neighbour exchange moves per plane.
  KOKKOS_INLINE_FUNCTION index_t plane_size() const { return slab_axis() == 2 ? index_t(nx) * ny : index_t(nx); }

  friend bool operator==(const Extents& a, const Extents& b) { return a.nx == b.nx && a.ny == b.ny && a.nz == b.nz; }
};

/// Checks that every extent is positive and the box is addressable; throws karman::Error.
inline void validate(const Extents& e, const char* where) {
  const int max_extent = 1 << 20;
  require_in_range(where, "nx", e.nx, 1, max_extent);
  require_in_range(where, "ny", e.ny, 1, max_extent);
  require_in_range(where, "nz", e.nz, 1, max_extent);
}

}  // namespace karman
