#pragma once
/// \file block_neighbours.hpp
/// Voxel x + c for a stencil of radius 1 on a block-sparse grid, as kernels need it: the
/// block-sparse counterpart of Neighbours<Dim>, with the same `at(cx, cy, cz)`, so a kernel
/// written against that one call runs on either grid.

#include <karman/core/sparse/block_grid_view.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

/// A voxel of a block-sparse grid as (block, local index inside the block).
struct BlockVoxel {
  block_index_t block = absent_block;  ///< stored block, or absent_block
  int local = 0;                       ///< voxel inside the block, x fastest
};

/// How BlockNeighbours turns a step into a (block, local) pair. Both give the same neighbours;
/// they differ in what the compiler keeps in registers, which a kernel picks by its shape
/// (docs/performance.md, "AA on the block-sparse grid: neighbour steps by step kind").
enum class NeighbourSteps {
  /// 3x3 tables of the direction and local-index change of each step, built once per voxel:
  /// fewest instructions per neighbour, best when the loop over the populations is unrolled
  /// and the table entries fold into registers (the AB pull).
  tables,
  /// Six bits, on which sides of its block the voxel lies, and a few integer operations per
  /// step: a kernel whose population loop is not unrolled (the AA odd step's boundary kernels)
  /// would index the tables at run time, which puts them in local memory on GPUs (spills).
  side_bits,
};

namespace detail {
/// What BlockNeighbours keeps of its voxel besides the block and local index, per form.
template <NeighbourSteps Steps>
struct NeighbourStepState {
  int direction[3][3];  ///< [axis][c + 1]: contribution to the table direction of a step c
  int step[3][3];       ///< [axis][c + 1]: change of the local index of a step c
};
template <>
struct NeighbourStepState<NeighbourSteps::side_bits> {
  int sides = 0;  ///< bits 2 axis, 2 axis + 1: the voxel lies on the block's low, high side
};
}  // namespace detail

/// The 3^Dim neighbours of one voxel of a block-sparse grid, c in {-1, 0, 1} per axis.
/// Periodic axes wrap (the grid built its neighbour table that way); a neighbour in a block
/// that is not stored is absent_voxel.
///
/// As in Neighbours<Dim>, the work that depends on the voxel alone (on which side of the block
/// each step lands) is done once in the constructor; each neighbour is then one read of the
/// block neighbour table (shared by the voxels of a block, so a warp reads one cached entry)
/// and a few integer operations, with no division. `Steps` picks how (NeighbourSteps).
template <int Dim, int B, class MemorySpace, NeighbourSteps Steps = NeighbourSteps::tables>
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
    if constexpr (Steps == NeighbourSteps::tables) {
      int stride = 1, direction_stride = 1;
      for (int axis = 0; axis < 3; ++axis) {
        for (int c = -1; c <= 1; ++c) {
          if (axis < Dim) {
            // Stepping off the block's side lands in the next block, at the opposite side.
            const int to = shape::local_coordinate(local, axis) + c;
            const int side = to < 0 ? 0 : (to >= B ? 2 : 1);
            m_state.direction[axis][c + 1] = side * direction_stride;
            m_state.step[axis][c + 1] = ((to + B) % B - (to - c)) * stride;
          } else {
            m_state.direction[axis][c + 1] = 0;
            m_state.step[axis][c + 1] = 0;
          }
        }
        stride *= B;
        direction_stride *= 3;
      }
    } else {
      for (int axis = 0; axis < Dim; ++axis) {
        const int x = shape::local_coordinate(local, axis);
        m_state.sides |= int(x == 0) << (2 * axis) | int(x == B - 1) << (2 * axis + 1);
      }
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
    if constexpr (Steps == NeighbourSteps::tables) {
      const auto& t = m_state;
      const int dir = t.direction[0][cx + 1] + t.direction[1][cy + 1] + t.direction[2][cz + 1];
      return {m_row[dir], m_local + t.step[0][cx + 1] + t.step[1][cy + 1] + t.step[2][cz + 1]};
    } else {
      // Stepping off the block's side lands in the next block (offset o), at the opposite side.
      const int ox = block_offset(0, cx), oy = block_offset(1, cy), oz = Dim == 3 ? block_offset(2, cz) : 0;
      return {m_row[shape::direction(ox, oy, oz)], m_local + shape::local_index(cx - ox * B, cy - oy * B, cz - oz * B)};
    }
  }
  /// Voxel index of voxel + (cx, cy, cz), or absent_voxel: what Neighbours<Dim>::at gives on a
  /// dense box, so `field(at(cx, cy, cz), q)` reads the neighbour on either grid.
  KOKKOS_INLINE_FUNCTION index_t at(int cx, int cy, int cz = 0) const {
    const BlockVoxel n = locate(cx, cy, cz);
    return n.block == absent_block ? absent_voxel : index_t(n.block) * shape::voxels + n.local;
  }

 private:
  /// Block offset along `axis` of a step c (side-bit form): c when the step leaves the block.
  KOKKOS_INLINE_FUNCTION int block_offset(int axis, int c) const {
    return c != 0 && ((m_state.sides >> (2 * axis + (c > 0))) & 1) ? c : 0;
  }

  const block_index_t* m_row;  ///< this block's row of the neighbour table (3^Dim entries)
  block_index_t m_block;
  int m_local;
  detail::NeighbourStepState<Steps> m_state;
};

}  // namespace karman
