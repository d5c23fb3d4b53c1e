#pragma once
/// \file block_grid_view.hpp
/// What kernels read of a block-sparse grid: the neighbour-block table, the per-block voxel
/// masks, the boundary bits and the block origins, as device Views. Copies are shallow, so a
/// kernel captures it by value like a Kokkos::View.

#include <karman/core/extents.hpp>
#include <karman/core/sparse/block_shape.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace karman {

/// Block index type of the neighbour table (Meneghin & Mahmoud Table II's s_i, 4 bytes).
using block_index_t = std::int32_t;

/// Entry of the neighbour-block table for a block that is not stored (all its voxels inactive,
/// or outside a non-periodic box).
inline constexpr block_index_t absent_block = -1;

/// Voxel index a neighbour accessor returns for a voxel in an absent block.
inline constexpr index_t absent_voxel = -1;

/// Device-side tables of a BlockSparseGrid<Dim, B, MemorySpace>. Voxel indices are
/// block * B^Dim + local, so a Field built on the grid's group table is addressed the way a
/// dense field is.
template <int Dim, int B, class MemorySpace>
struct BlockGridView {
  using shape = BlockShape<Dim, B>;
  using mask_type = typename shape::mask_type;
  using memory_space = MemorySpace;

  /// neighbours(b * 3^Dim + dir): the block at direction `dir` of block b, or absent_block.
  Kokkos::View<const block_index_t*, MemorySpace> neighbours;
  /// masks(b): bit l set when local voxel l of block b is active.
  Kokkos::View<const mask_type*, MemorySpace> masks;
  /// Bit b % 32 of boundary_bits(b / 32) set when block b is a boundary block (Table II's
  /// bitmask; one 32-bit word serves a warp's worth of blocks).
  Kokkos::View<const std::uint32_t*, MemorySpace> boundary_bits;
  /// origins(b * 3 + axis): coordinate of block b's voxel (0, 0, 0) in the box.
  Kokkos::View<const int*, MemorySpace> origins;
  /// The box the blocks tile.
  Extents extents;
  /// Stored blocks.
  block_index_t blocks = 0;

  /// Block of a voxel index.
  KOKKOS_INLINE_FUNCTION static block_index_t block_of(index_t voxel) { return block_index_t(voxel / shape::voxels); }
  /// Local index of a voxel index inside its block.
  KOKKOS_INLINE_FUNCTION static int local_of(index_t voxel) { return int(voxel % shape::voxels); }
  /// Voxel index of local voxel `local` of block `block`.
  KOKKOS_INLINE_FUNCTION static index_t voxel_of(block_index_t block, int local) {
    return index_t(block) * shape::voxels + local;
  }

  /// True when the voxel is active.
  KOKKOS_INLINE_FUNCTION bool active(index_t voxel) const { return (masks(block_of(voxel)) >> local_of(voxel)) & 1u; }
  /// True when `block` is a boundary block.
  KOKKOS_INLINE_FUNCTION bool boundary(block_index_t block) const {
    return (boundary_bits(block / 32) >> (block % 32)) & 1u;
  }
  /// Block at direction `dir` (BlockShape::direction) of `block`, or absent_block.
  KOKKOS_INLINE_FUNCTION block_index_t neighbour(block_index_t block, int dir) const {
    return neighbours(index_t(block) * shape::directions + dir);
  }
  /// Coordinate of a voxel along `axis` in the box.
  KOKKOS_INLINE_FUNCTION int coordinate(index_t voxel, int axis) const {
    return origins(index_t(block_of(voxel)) * 3 + axis) + shape::local_coordinate(local_of(voxel), axis);
  }
};

}  // namespace karman
