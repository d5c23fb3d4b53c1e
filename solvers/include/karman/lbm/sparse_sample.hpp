#pragma once
/// \file sparse_sample.hpp
/// What a block-sparse solver is built from, on the host: a SolverSetup's geometry seen as the
/// voxels the grid stores, which of them need the boundary kernel, and their flag words
/// (docs/block_sparse.md, "How the LBM kernel runs on it").

#include <karman/core/extents.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/update_schedule.hpp>

#include <array>
#include <cstdint>
#include <string>
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
/// The sample is kept by blocks of the grid (sparse_block_edge: 4^3 in 3D, 8^2 in 2D): for each
/// block holding an active voxel, the masks of its active and of its solid voxels; a block not
/// kept is solid throughout. A rank classifies only its part of the box, in one sweep of its
/// voxel planes that holds three of them at a time: the block planes holding the voxel planes it
/// is asked about and one block plane on each side (their stencils). So the memory of a sample
/// is proportional to its active blocks (issue 50: set-up in proportion to them), never a byte
/// a voxel of the box or of the rank's planes.
class SparseSample {
 public:
  /// Voxels along each axis of a block of the sample (and of the grid built from it).
  static int block_edge(int dimension) { return dimension == 3 ? sparse_block_edge<3> : sparse_block_edge<2>; }

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

  /// The box the sample covers.
  const Extents& extents() const { return m_setup.global; }
  /// Which axes of the box wrap around.
  const std::array<bool, 3>& periodic() const { return m_setup.periodic; }

  /// Kept blocks: those of the kept planes holding an active voxel.
  std::size_t block_count() const { return m_active.size(); }
  /// Block coordinates of kept block k in the box's lattice of blocks (z = 0 in 2D).
  std::array<int, 3> block_at(std::size_t k) const;
  /// Active voxels of kept block k, a bit each in BlockShape's order (x fastest).
  std::uint64_t active_mask(std::size_t k) const { return m_active[k]; }
  /// Solid voxels of kept block k (those past the box's side count solid).
  std::uint64_t solid_mask(std::size_t k) const { return m_solid[k]; }
  /// Bytes the sample holds a kept block for, and the look-up over its lattice of blocks.
  std::size_t host_bytes() const;

 private:
  /// Sweeps the kept block planes, keeping the blocks with an active voxel.
  void sweep();
  /// Kept block holding voxel (x, y, z) of the box (wrapped into it), or -1 when none is: a
  /// solid block. Throws std::logic_error for a voxel outside the kept planes.
  long long kept_block(int x, int y, int z) const;
  /// True when the voxel at (x, y, z) is solid; outside a non-periodic side counts as solid.
  /// Throws std::logic_error for a voxel outside the kept planes.
  bool solid(int x, int y, int z) const;

  SolverSetup m_setup;
  std::vector<std::array<int, 3>> m_velocities;
  int m_axis = 2;                                ///< the box's slab axis
  int m_edge = 4;                                ///< block edge B, a power of two
  int m_edge_shift = 0;                          ///< log2(B)
  std::array<int, 3> m_blocks{};                 ///< blocks along x, y, z of the box's lattice of blocks
  int m_first_block_plane = 0;                   ///< block plane of the box at the first kept one (may wrap)
  int m_kept_block_planes = 0;                   ///< kept block planes along the axis
  std::vector<index_t> m_keys;                   ///< kept block's index in the kept planes' lattice, ascending
  std::vector<std::uint64_t> m_active, m_solid;  ///< each kept block's masks
  /// Kept block of each block of the kept planes' lattice, or -1, when that table holds at most
  /// 16 entries a kept block (else m_keys are searched, as BlockSparseGrid does).
  std::vector<std::int32_t> m_table;
};

/// The block-sparse grid of `sample`'s active voxels on the `owned` block planes (and a halo
/// block plane on each side when they are not all of them), its boundary blocks those holding a
/// voxel SparseSample::boundary marks, with `grouping`.
/// Built from the sample's kept blocks, so in time and memory proportional to them.
template <class Grid>
Grid sparse_grid(const std::string& label, const SparseSample& sample, OwnedBlockPlanes owned, BlockGrouping grouping) {
  static_assert(Grid::block_edge == sparse_block_edge<Grid::shape_type::dim>,
                "karman::lbm::sparse_grid: the grid's blocks are the sample's");
  std::vector<typename Grid::ActiveBlock> blocks(sample.block_count());
  for (std::size_t k = 0; k < blocks.size(); ++k) blocks[k] = {sample.block_at(k), sample.active_mask(k)};
  return Grid(
      label, sample.extents(), sample.periodic(), owned, blocks,
      [&](int x, int y, int z) { return sample.boundary(x, y, z); }, grouping);
}

}  // namespace karman::lbm
