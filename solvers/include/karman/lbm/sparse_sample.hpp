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

/// Voxel planes along a box's slab axis (z in 3D, y in 2D): a rank's part of the box.
struct VoxelPlanes {
  int begin = 0;  ///< first plane; may be negative or past the box on a periodic axis (it wraps)
  int count = 0;  ///< planes
};

/// A case's geometry as a block-sparse grid needs it. The grid stores the *active* voxels:
/// every non-solid voxel and the solid voxels in the 3^D stencil of one (the wall layer), so a
/// fluid voxel's every neighbour is stored: bounce-back reads its wall voxel's flag and the AA
/// odd step writes into x + c_i exactly as on the dense box. Solid voxels away from the fluid
/// are not stored.
///
/// A rank classifies only its part of the box: the sample keeps a solid byte per voxel of the
/// planes it is asked about and one plane on each side (their stencils), not of the whole box,
/// so a box shared by many ranks costs each of them its share.
class SparseSample {
 public:
  /// Classifies `setup`'s box for a lattice of `velocities`, for queries on every voxel.
  SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities);
  /// The same for queries on the voxels of `planes` only (the rank's block planes and halo
  /// planes as voxel planes).
  SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities, VoxelPlanes planes);

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
  /// Throws std::logic_error for a voxel outside the kept planes.
  bool solid(int x, int y, int z) const;

  SolverSetup m_setup;
  std::vector<std::array<int, 3>> m_velocities;
  int m_axis = 2;                     ///< the box's slab axis
  int m_first_plane = 0;              ///< the box's plane of m_solid's first plane
  Extents m_kept;                     ///< the box, as thick as the kept planes along the slab axis
  std::vector<std::uint8_t> m_solid;  ///< one byte per voxel of the kept planes, x fastest
};

}  // namespace karman::lbm
