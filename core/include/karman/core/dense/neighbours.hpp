#pragma once
/// \file neighbours.hpp
/// Voxel x + c for a stencil of radius 1 in a partition's local box, as kernels need it:
/// periodic across the in-plane axes, through the halo planes along the slab axis.

#include <karman/core/extents.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

/// The 3^Dim neighbours of one voxel of a local box numbered x fastest (SlabPartition::local()),
/// c in {-1, 0, 1} per axis. The in-plane axes (x, and y in 3D) wrap around: a voxel on the
/// last column's neighbour at +1 is on the first column. Along the slab axis
/// (Extents::slab_axis()) nothing wraps: the neighbour of an owned voxel at a slab end is in a
/// halo plane, which a halo exchange fills (periodic or from the neighbouring rank).
///
/// The wrap is decided once per voxel; each neighbour is then three table look-ups and adds,
/// with no division, so a kernel visiting Q neighbours pays for the voxel's coordinates once.
template <int Dim>
class Neighbours {
  static_assert(Dim == 2 || Dim == 3, "karman::Neighbours: Dim must be 2 (slab axis y) or 3 (slab axis z)");

 public:
  /// What the constructor takes besides the voxel: a kernel templated on its neighbour
  /// accessor N builds `N(voxel, topology)` and so runs on a dense box or on a
  /// BlockSparseGrid (BlockNeighbours) alike.
  using topology_type = Extents;

  /// The neighbours of `voxel` in `local`, a box of dimension Dim with halo planes.
  KOKKOS_INLINE_FUNCTION Neighbours(index_t voxel, const Extents& local) : m_voxel(voxel) {
    KOKKOS_ASSERT(local.dimension() == Dim);
    const int nx = local.nx;
    const int x = int(voxel % nx);
    m_d[0][0] = x == 0 ? nx - 1 : -1;
    m_d[0][2] = x == nx - 1 ? -(nx - 1) : 1;
    if constexpr (Dim == 3) {
      const int ny = local.ny;
      const int y = int(voxel / nx % ny);
      m_d[1][0] = y == 0 ? index_t(ny - 1) * nx : -index_t(nx);
      m_d[1][2] = y == ny - 1 ? -index_t(ny - 1) * nx : index_t(nx);
    } else {
      m_d[1][0] = -index_t(nx);
      m_d[1][2] = index_t(nx);
    }
    const index_t plane = local.plane_size();
    m_d[2][0] = Dim == 3 ? -plane : 0;
    m_d[2][2] = Dim == 3 ? plane : 0;
    m_d[0][1] = m_d[1][1] = m_d[2][1] = 0;
  }

  /// Index offset of one step c in {-1, 0, 1} along `axis`, wrap included: along y and z the
  /// same for every voxel of the x-row (RowOffsets).
  KOKKOS_INLINE_FUNCTION index_t offset(int axis, int c) const { return m_d[axis][c + 1]; }
  /// The voxel whose neighbours these are.
  KOKKOS_INLINE_FUNCTION index_t voxel() const { return m_voxel; }
  /// Linear index of voxel + (cx, cy, cz), each in {-1, 0, 1}; cz is 0 in 2D.
  KOKKOS_INLINE_FUNCTION index_t at(int cx, int cy, int cz = 0) const {
    KOKKOS_ASSERT(cx >= -1 && cx <= 1 && cy >= -1 && cy <= 1 && cz >= -1 && cz <= 1 && (Dim == 3 || cz == 0));
    return m_voxel + m_d[0][cx + 1] + m_d[1][cy + 1] + m_d[2][cz + 1];
  }

 private:
  index_t m_voxel;
  index_t m_d[3][3];  ///< m_d[axis][c + 1]: index offset of one step c along axis
};

/// The steps along y and z of the voxels of one x-row of a local box, resolved once for the
/// row: a CPU launch by rows (for_each_row.hpp) then reaches every voxel strictly inside the
/// row with additions of row constants, which the compiler turns into contiguous vector loads
/// across x. The voxels at x = 0 and nx - 1 wrap along x and take Neighbours.
template <int Dim>
struct RowOffsets {
  index_t d[2][3];  ///< d[axis - 1][c + 1]: offset of one step c along y (axis 1) and z (axis 2)

  /// The offsets of the row holding voxel `voxel` of `local`.
  KOKKOS_INLINE_FUNCTION RowOffsets(index_t voxel, const Extents& local) {
    const Neighbours<Dim> n(voxel, local);
    for (int axis = 1; axis < 3; ++axis)
      for (int c = -1; c <= 1; ++c) d[axis - 1][c + 1] = n.offset(axis, c);
  }
};

/// The neighbours of a voxel strictly inside its x-row (0 < x < nx - 1), where no step along x
/// wraps: Neighbours' answers without its per-voxel division and selects.
template <int Dim>
class InRowNeighbours {
 public:
  KOKKOS_INLINE_FUNCTION InRowNeighbours(index_t voxel, const RowOffsets<Dim>& row) : m_voxel(voxel), m_row(row) {}

  /// The voxel whose neighbours these are.
  KOKKOS_INLINE_FUNCTION index_t voxel() const { return m_voxel; }
  /// Linear index of voxel + (cx, cy, cz), each in {-1, 0, 1}; cz is 0 in 2D.
  KOKKOS_INLINE_FUNCTION index_t at(int cx, int cy, int cz = 0) const {
    return m_voxel + cx + m_row.d[0][cy + 1] + m_row.d[1][cz + 1];
  }

 private:
  index_t m_voxel;
  const RowOffsets<Dim>& m_row;
};

}  // namespace karman
