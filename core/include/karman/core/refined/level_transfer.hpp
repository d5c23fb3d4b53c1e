#pragma once
/// \file level_transfer.hpp
/// Restriction between neighbouring levels of a RefinedGrid (refined_grid.hpp): the voxels of a
/// level's overlap blocks gather the voxels of the next finer level that fill them, 2^Dim each.
/// The LBM's coalescence (Rohde et al. 2006) is this gather with weight 1 / (2 · 2^Dim) before
/// each of the two fine sub-steps of a coarse step: the average over the children and over both
/// sub-steps, volumetric, so the mass a coarse voxel receives is the mass its children hold. A
/// gather, not a scatter: every coarse voxel is written by one thread, with no atomics.

#include <karman/core/for_each.hpp>
#include <karman/core/group.hpp>
#include <karman/core/refined/refined_grid.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

namespace detail {

/// accumulate_children's kernel over the coarse level's voxels.
template <int Dim, int B, class MemorySpace, class CoarseField, class FineField>
struct AccumulateChildren {
  using shape = BlockShape<Dim, B>;
  CoarseField coarse;
  FineField fine;
  RefinedLevelView<Dim, MemorySpace> tables;
  Kokkos::View<const int*, MemorySpace> origins;  ///< the coarse level grid's block origins
  double weight;

  KOKKOS_INLINE_FUNCTION void operator()(index_t voxel) const {
    const block_index_t b = block_index_t(voxel / shape::voxels);
    if (tables.roles(b) != std::uint8_t(RefinedBlockRole::overlap)) return;
    const int local = int(voxel % shape::voxels);
    // The voxel's children are the fine voxels 2g + k, g its coordinates in the coarse level:
    // along each axis, 2g + bit lies in child (2g + bit) / B - 2 · (the block's coordinate),
    // at (2g + bit) % B there. Worked out once per axis, then combined for the 2^Dim children.
    int child_bit[3][2] = {}, local_at[3][2] = {};
    for (int a = 0; a < Dim; ++a) {
      const int origin = origins(std::size_t(b) * 3 + std::size_t(a));
      const int twice = 2 * (origin + shape::local_coordinate(local, a));
      for (int bit = 0; bit < 2; ++bit) {
        child_bit[a][bit] = (twice + bit) / B - 2 * (origin / B);
        local_at[a][bit] = (twice + bit) % B;
      }
    }
    index_t children[1 << Dim];
    for (int k = 0; k < (1 << Dim); ++k) {
      int child = 0, fine_local = 0;
      for (int a = 0, stride = 1; a < Dim; ++a, stride *= B) {
        const int bit = (k >> a) & 1;
        child |= child_bit[a][bit] << a;
        fine_local += local_at[a][bit] * stride;
      }
      const block_index_t cb = tables.children(std::size_t(b) * (1 << Dim) + std::size_t(child));
      if (cb == absent_block) return;  // refined further: no coarse leaf reads this voxel
      children[k] = index_t(cb) * shape::voxels + fine_local;
    }
    for (int c = 0; c < coarse.components(); ++c) {
      double sum = 0;
      for (int k = 0; k < (1 << Dim); ++k) sum += double(fine(children[k], c));
      coarse(voxel, c) += typename CoarseField::value_type(weight * sum);
    }
  }
};

}  // namespace detail

/// Adds `weight` times the sum over its 2^Dim children (voxels of level coarse_level - 1 in
/// `fine`) to every component of every voxel of the overlap blocks of level `coarse_level` in
/// `coarse`, on `space` (asynchronous). A voxel whose children are not all stored (they are
/// refined further, and no coarse leaf reads it) is left as it is. `coarse` and `fine` are fields
/// on the two level grids with as many components. Throws karman::Error for level 0 or an empty
/// level.
template <class ExecutionSpace, int Dim, int B, class MemorySpace, class CoarseField, class FineField>
void accumulate_children(const ExecutionSpace& space, const RefinedGrid<Dim, B, MemorySpace>& grid, int coarse_level,
                         const CoarseField& coarse, const FineField& fine, double weight) {
  if (coarse_level < 1) {
    throw Error("karman::accumulate_children: level " + std::to_string(coarse_level) +
                " has no finer level; accepted: 1 to " + std::to_string(grid.levels() - 1));
  }
  const auto& level = grid.level(coarse_level);
  grid.level(coarse_level - 1);  // throws for an empty finer level
  for_each("karman::accumulate_children", VoxelRange{0, level.voxel_count()}, space,
           detail::AccumulateChildren<Dim, B, MemorySpace, CoarseField, FineField>{
               coarse, fine, grid.view(coarse_level), level.view().origins, weight});
}

}  // namespace karman
