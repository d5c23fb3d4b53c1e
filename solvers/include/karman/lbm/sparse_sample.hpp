#pragma once
/// \file sparse_sample.hpp
/// What a block-sparse solver is built from, on the host: a SolverSetup's geometry seen as the
/// voxels the grid stores, which of them need the boundary kernel, and their flag words
/// (docs/block_sparse.md, "How the LBM kernel runs on it").

#include <karman/core/extents.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/update_schedule.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace karman::lbm {

/// A case's geometry as a block-sparse grid needs it. The grid stores the *active* voxels:
/// every non-solid voxel and the solid voxels in the 3^D stencil of one (the wall layer), so a
/// fluid voxel's every neighbour is stored: bounce-back reads its wall voxel's flag and the AA
/// odd step writes into x + c_i exactly as on the dense box. Solid voxels away from the fluid
/// are not stored.
class SparseSample {
 public:
  /// Classifies `setup`'s box for a lattice of `velocities` (one solid byte per voxel is kept).
  SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities);

  /// True when voxel (x, y, z) of the box is stored: non-solid, or solid next to a non-solid voxel.
  bool active(int x, int y, int z) const;
  /// True when an active voxel needs the boundary kernel: a wall voxel, an inlet/outlet, or a
  /// fluid voxel with a population from a non-fluid source (not is_bulk, as the dense schedule).
  bool boundary(int x, int y, int z) const { return !is_bulk(flag(x, y, z)); }
  /// Flag word of voxel (x, y, z) of the box, as build_flags gives it on the dense box.
  flag_t flag(int x, int y, int z) const;
  /// Initial density and velocity of voxel (x, y, z) of the box.
  FlowState initial(int x, int y, int z) const;

 private:
  /// True when the voxel at (x, y, z) is solid; outside a non-periodic side counts as solid.
  bool solid(int x, int y, int z) const;

  SolverSetup m_setup;
  std::vector<std::array<int, 3>> m_velocities;
  std::vector<std::uint8_t> m_solid;  ///< one byte per voxel of the box, x fastest
};

}  // namespace karman::lbm
