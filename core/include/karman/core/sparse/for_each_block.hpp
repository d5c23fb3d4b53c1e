#pragma once
/// \file for_each_block.hpp
/// Launch a functor over the active voxels of one block set of a block-sparse grid, so a time
/// step runs boundary and non-boundary blocks as separate kernels (Meneghin & Mahmoud §IV-B,
/// Table II): with memory grouping each kernel spans its own contiguous run of blocks, with
/// bitmask grouping both span every block and test the block's bit.
///
/// On CPU backends a functor may run its blocks whole, one block per work item: it says so with
/// `static constexpr bool by_blocks = true` and offers `update_block(block_index_t)`, the
/// update of every voxel of a block, for every block of the sets it is launched over (a
/// functor without boundary code is launched over the non-boundary blocks only, all active by
/// construction). A call per voxel keeps the update scalar and resolves each voxel's neighbours
/// apart (block-sparse D3Q19 at 0.16-0.55 of the dense grid's vectorised rows on two cores,
/// docs/performance.md); a whole block can stream through a tile and vectorise across its
/// voxels (block_tile.hpp). GPU backends keep one thread per voxel, which is what coalesces
/// there.

#include <karman/core/backend_traits.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace karman {

/// True when Functor declares `by_blocks = true` (see the file comment).
template <class Functor, class = void>
inline constexpr bool runs_by_blocks = false;
template <class Functor>
inline constexpr bool runs_by_blocks<Functor, std::void_t<decltype(Functor::by_blocks)>> = Functor::by_blocks;

/// True when Functor declares `visits_inactive_voxels = true`: on GPUs it is called for the
/// inactive voxels of the blocks it runs too, and tells them apart itself (StreamCollide writes
/// whole memory transactions with them). The mask test it spares is one dependent read less.
/// CPUs keep the test: a cache line is read whole before any part of it is written.
template <class Functor, class = void>
inline constexpr bool visits_inactive_voxels = false;
template <class Functor>
inline constexpr bool visits_inactive_voxels<Functor, std::void_t<decltype(Functor::visits_inactive_voxels)>> =
    Functor::visits_inactive_voxels;

namespace detail {
/// Calls the wrapped functor on the voxels of set `Set` among those it is launched over.
/// `TestBit`: the launch spans boundary and non-boundary blocks (bitmask grouping). `TestActive`: inactive
/// voxels are left out; the non-boundary kernel tests no voxel mask: its blocks are full by
/// construction.
template <BlockSet Set, bool TestBit, bool TestActive, class GridView, class Functor>
struct BlockSetVoxels {
  GridView grid;
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    if constexpr (TestBit && Set != BlockSet::all) {
      if (grid.boundary(grid.block_of(v)) != (Set == BlockSet::boundary)) return;
    }
    if constexpr (Set != BlockSet::non_boundary && TestActive) {
      if (!grid.active(v)) return;
    }
    functor(v);
  }
};

/// Calls the wrapped functor's update_block on the blocks of set `Set` among those it is
/// launched over, one work item per block.
template <BlockSet Set, bool TestBit, class GridView, class Functor>
struct BlockSetBlocks {
  GridView grid;
  Functor functor;
  KARMAN_KERNEL_BODY void operator()(block_index_t b) const {
    if constexpr (TestBit && Set != BlockSet::all) {
      if (grid.boundary(b) != (Set == BlockSet::boundary)) return;
    }
    functor.update_block(b);
  }
};

template <BlockSet Set, bool TestBit, class... Properties, class ExecutionSpace, class GridView, class Functor>
void launch_block_set(const std::string& label, BlockRange blocks, const GridView& grid, const ExecutionSpace& space,
                      const Functor& functor) {
  if constexpr (!BackendTraits<ExecutionSpace>::is_gpu && runs_by_blocks<Functor>) {
    const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<block_index_t>> policy(space, blocks.begin, blocks.end);
    Kokkos::parallel_for(label, policy, BlockSetBlocks<Set, TestBit, GridView, Functor>{grid, functor});
    return;
  }
  constexpr index_t voxels = GridView::shape::voxels;
  constexpr bool test_active = !(visits_inactive_voxels<Functor> && BackendTraits<ExecutionSpace>::is_gpu);
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>, Properties...> policy(
      space, index_t(blocks.begin) * voxels, index_t(blocks.end) * voxels);
  Kokkos::parallel_for(label,
                       Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                       BlockSetVoxels<Set, TestBit, test_active, GridView, Functor>{grid, functor});
}
}  // namespace detail

/// Calls `functor(voxel)` for every active voxel of the stored blocks [blocks.begin,
/// blocks.end) on `space` (asynchronous; on GPUs every voxel for a functor that
/// visits_inactive_voxels): a group of a rank's blocks, such as its shared blocks
/// (BlockSparseGrid::group_blocks), boundary blocks or not.
template <class... Properties, class ExecutionSpace, int Dim, int B, class MemorySpace, class Functor>
void for_each(const std::string& label, const BlockSparseGrid<Dim, B, MemorySpace>& grid, BlockRange blocks,
              const ExecutionSpace& space, const Functor& functor) {
  if (blocks.empty()) return;
  detail::launch_block_set<BlockSet::all, false, Properties...>(label, blocks, grid.view(), space, functor);
}

namespace detail {
/// for_each over the blocks `blocks` of `set`.
template <class... Properties, class ExecutionSpace, int Dim, int B, class MemorySpace, class Functor>
void launch_set(const std::string& label, const BlockSparseGrid<Dim, B, MemorySpace>& grid, BlockSet set,
                BlockRange blocks, const ExecutionSpace& space, const Functor& functor) {
  if (blocks.empty()) return;
  const auto& view = grid.view();
  const bool bitmask = grid.grouping() == BlockGrouping::bitmask;
  switch (set) {
    case BlockSet::boundary:
      if (bitmask) {
        launch_block_set<BlockSet::boundary, true, Properties...>(label, blocks, view, space, functor);
      } else {
        launch_block_set<BlockSet::boundary, false, Properties...>(label, blocks, view, space, functor);
      }
      break;
    case BlockSet::non_boundary:
      if (bitmask) {
        launch_block_set<BlockSet::non_boundary, true, Properties...>(label, blocks, view, space, functor);
      } else {
        launch_block_set<BlockSet::non_boundary, false, Properties...>(label, blocks, view, space, functor);
      }
      break;
    case BlockSet::all:
      launch_block_set<BlockSet::all, false, Properties...>(label, blocks, view, space, functor);
      break;
  }
}
}  // namespace detail

/// Calls `functor(voxel)` for every active voxel of the blocks of `set` on `space`
/// (asynchronous; on GPUs every voxel of a boundary block for a functor that
/// visits_inactive_voxels), one work item per voxel of the blocks spanned, so consecutive work
/// items are consecutive voxels of a block and read a block's chunk of each component together.
/// `voxel` is the grid's voxel index (BlockGridView::voxel_of). `Properties` are further
/// Kokkos policy properties, e.g. `Kokkos::LaunchBounds<256, 1>`. On CPU backends a functor
/// that runs by blocks runs the non-boundary set by blocks (see the file comment). A grid of
/// several kinds of blocks launches its boundary and non-boundary sets kind by kind (below).
template <class... Properties, class ExecutionSpace, int Dim, int B, class MemorySpace, class Functor>
void for_each(const std::string& label, const BlockSparseGrid<Dim, B, MemorySpace>& grid, BlockSet set,
              const ExecutionSpace& space, const Functor& functor) {
  detail::launch_set<Properties...>(label, grid, set, grid.span(set), space, functor);
}

/// The same over the interior blocks of kind `kind` (BlockSparseGrid::span(BlockSet, int)): the
/// run a kernel of its own serves, as the fused kernel serves a refined level's blocks away from
/// a level jump (Meneghin & Mahmoud §V).
template <class... Properties, class ExecutionSpace, int Dim, int B, class MemorySpace, class Functor>
void for_each(const std::string& label, const BlockSparseGrid<Dim, B, MemorySpace>& grid, BlockSet set, int kind,
              const ExecutionSpace& space, const Functor& functor) {
  detail::launch_set<Properties...>(label, grid, set, grid.span(set, kind), space, functor);
}

}  // namespace karman
