#pragma once
/// \file block_neighbours.hpp
/// Voxel x + c for a stencil of radius 1 on a block-sparse grid, as kernels need it: the
/// block-sparse counterpart of Neighbours<Dim>, with the same `at(cx, cy, cz)`, so a kernel
/// written against that one call runs on either grid.

#include <karman/core/block_grid_view.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

/// A voxel of a block-sparse grid as (block, local index inside the block).
struct BlockVoxel {
  block_index_t block = absent_block;  ///< stored block, or absent_block
  int local = 0;                       ///< voxel inside the block, x fastest
};

/// The 3^Dim neighbours of one voxel of a block-sparse grid, c in {-1, 0, 1} per axis.
/// Periodic axes wrap (the grid built its neighbour table that way); a neighbour in a block
/// that is not stored is absent_voxel.
///
/// As in Neighbours<Dim>, the work that depends on the voxel alone (its local coordinates, on
/// which side of the block each step lands) is done once in the constructor; each neighbour is
/// then one table read (shared by the voxels of a block, so a warp reads one cached entry)
/// and a few adds, with no division.
template <int Dim, int B, class MemorySpace>
class BlockNeighbours {
  using shape = BlockShape<Dim, B>;

 public:
  /// What the constructor takes besides the voxel, as Neighbours<Dim>::topology_type.
  using topology_type = BlockGridView<Dim, B, MemorySpace>;

  /// The neighbours of voxel index `voxel` (block * B^Dim + local) of `grid`.
  KOKKOS_INLINE_FUNCTION BlockNeighbours(index_t voxel, const BlockGridView<Dim, B, MemorySpace>& grid)
      : BlockNeighbours(grid.block_of(voxel), grid.local_of(voxel), grid) {}

  /// The neighbours of local voxel `local` of block `block`.
  KOKKOS_INLINE_FUNCTION BlockNeighbours(block_index_t block, int local, const BlockGridView<Dim, B, MemorySpace>& grid)
      : m_row(grid.neighbours.data() + index_t(block) * shape::directions), m_block(block), m_local(local) {
    KOKKOS_ASSERT(block >= 0 && block < grid.blocks && local >= 0 && local < shape::voxels);
    int stride = 1, direction_stride = 1;
    for (int axis = 0; axis < 3; ++axis) {
      for (int c = -1; c <= 1; ++c) {
        if (axis < Dim) {
          // Stepping off the block's side lands in the next block, at the opposite side.
          const int to = shape::local_coordinate(local, axis) + c;
          const int side = to < 0 ? 0 : (to >= B ? 2 : 1);
          m_direction[axis][c + 1] = side * direction_stride;
          m_step[axis][c + 1] = ((to + B) % B - (to - c)) * stride;
        } else {
          m_direction[axis][c + 1] = 0;
          m_step[axis][c + 1] = 0;
        }
      }
      stride *= B;
      direction_stride *= 3;
    }
  }

  /// Block of the voxel whose neighbours these are.
  KOKKOS_INLINE_FUNCTION block_index_t block() const { return m_block; }
  /// Local index of that voxel.
  KOKKOS_INLINE_FUNCTION int local() const { return m_local; }
  /// Voxel index of that voxel.
  KOKKOS_INLINE_FUNCTION index_t voxel() const { return index_t(m_block) * shape::voxels + m_local; }

  /// (block, local) of voxel + (cx, cy, cz), each in {-1, 0, 1}, cz 0 in 2D; the block is
  /// absent_block when that block is not stored.
  KOKKOS_INLINE_FUNCTION BlockVoxel locate(int cx, int cy, int cz = 0) const {
    KOKKOS_ASSERT(cx >= -1 && cx <= 1 && cy >= -1 && cy <= 1 && cz >= -1 && cz <= 1 && (Dim == 3 || cz == 0));
    const int dir = m_direction[0][cx + 1] + m_direction[1][cy + 1] + m_direction[2][cz + 1];
    return {m_row[dir], m_local + m_step[0][cx + 1] + m_step[1][cy + 1] + m_step[2][cz + 1]};
  }
  /// Voxel index of voxel + (cx, cy, cz), or absent_voxel: what Neighbours<Dim>::at gives on a
  /// dense box, so `field(at(cx, cy, cz), q)` reads the neighbour on either grid.
  KOKKOS_INLINE_FUNCTION index_t at(int cx, int cy, int cz = 0) const {
    const BlockVoxel n = locate(cx, cy, cz);
    return n.block == absent_block ? absent_voxel : index_t(n.block) * shape::voxels + n.local;
  }

 private:
  const block_index_t* m_row;  ///< this block's row of the neighbour table (3^Dim entries)
  block_index_t m_block;
  int m_local;
  int m_direction[3][3];  ///< [axis][c + 1]: contribution to the table direction of a step c
  int m_step[3][3];       ///< [axis][c + 1]: change of the local index of a step c
};

}  // namespace karman
