#pragma once
/// \file sparse_flow_solver.hpp
/// The runtime face of every compiled block-sparse solver variant (sparse_solver.hpp), for
/// applications that choose the variant from user input. Virtual calls happen once per step,
/// never per voxel.

#include <karman/core/block_sparse_grid.hpp>
#include <karman/lbm/flow_solver.hpp>

#include <cstdint>

namespace karman::lbm {

/// Block edge of the sparse solver's grid: 4^3 blocks in 3D (Meneghin & Mahmoud §IV), 8^2 in
/// 2D, so a block is 64 voxels, one 64-bit mask, in both.
template <int Dim>
inline constexpr int sparse_block_edge = Dim == 3 ? 4 : 8;

/// A solver of one compiled variant on a block-sparse grid: one rank's block planes, or all.
/// Its FlowSolver face is the dense solvers': moments, populations and flags in the order of
/// owned_box() (the rank's block planes as voxel planes, cut at the box's side), zeros where no
/// block is stored, so that a run loop, its output and its checkpoints serve every grid.
class SparseFlowSolver : public FlowSolver {
 public:
  /// Density and velocity after the last step of every stored voxel, by the grid's voxel index
  /// (voxel_index()); 0 in walls, in the inactive voxels of partly filled blocks and in halo
  /// blocks. Collective when ranks share the grid (the halos are exchanged first).
  virtual MomentFields block_moments() = 0;
  /// Voxel index of the owned voxel (x, y, z) of the box, or absent_voxel where its block is
  /// not stored or another rank owns it.
  virtual index_t voxel_index(int x, int y, int z) const = 0;
  /// Voxels of the stored blocks, inactive and halo ones included: the length of block_moments().
  virtual index_t voxel_count() const = 0;
  /// Voxels updated each step on this rank: the owned ones that are not solid.
  virtual index_t fluid_voxels() const = 0;
  /// Blocks this rank computes: every stored block on one rank, all but the halo blocks on
  /// several.
  virtual std::int64_t block_count() const = 0;
  /// Stored blocks that run the boundary kernel (Meneghin & Mahmoud Table II).
  virtual std::int64_t boundary_block_count() const = 0;
  /// How boundary blocks are told apart.
  virtual BlockGrouping grouping() const = 0;
};

}  // namespace karman::lbm
