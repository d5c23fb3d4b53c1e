#pragma once
/// \file refined_grid.hpp
/// A refined grid: one BlockSparseGrid per level of a RefinedLevels (refined_levels.hpp),
/// holding the level's leaves and overlap blocks, and the tables that couple neighbouring levels
/// (Rohde et al. 2006; the parent and child tables of Mahmoud, Salehipour & Meneghin, IPDPS 2024):
/// - **explosion** (coarse to fine): a voxel of level l whose upwind neighbour lies in the space of
///   a coarser leaf takes that coarse voxel's value. Its block's parent on level l + 1 is refined;
///   the coarse voxel lies in the parent's 3^Dim neighbourhood, which the 2:1 balance stores, so
///   `coarse_neighbour(l, b, dir)` gives its block in level l + 1's grid;
/// - **coalescence** (fine to coarse): a coarse leaf whose upwind neighbour lies in a refined
///   block reads the overlap block there, which gathers its children's values:
///   `child(l, b, k)` gives child k of overlap block b of level l in level l - 1's grid.
/// Every table holds block indices of the level grids (absent_block where nothing is stored), on
/// the host and, for kernels, in MemorySpace. A rank holds the planes a BlockPartition of the
/// coarsest level gives it, on every level (shared cuts), with a halo block plane on each side;
/// its tables cover the halo blocks too, so that an owned block's coarse neighbourhood reaches
/// into the coarse level's halo plane. A level's blocks are its leaves and overlap blocks with
/// every voxel active; a classifier of the voxels that need boundary code (walls, inlets: the
/// solver's knowledge) tells each level's boundary blocks apart.

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/core/sparse/block_partition.hpp>
#include <karman/core/sparse/block_shape.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace karman {

/// What a stored block of a level grid is.
enum class RefinedBlockRole : std::uint8_t {
  leaf = 0,      ///< computed on its level, away from a level jump (zero: a new table says leaf)
  leaf_at_jump,  ///< computed on its level, with a block of another level among its neighbours
  overlap,       ///< a refined block beside a leaf: where its children's values are gathered
};

/// The coupling tables of one level grid, for kernels (shallow copies, like a Kokkos::View).
template <int Dim, class MemorySpace>
struct RefinedLevelView {
  /// roles(b): RefinedBlockRole of stored block b.
  Kokkos::View<const std::uint8_t*, MemorySpace> roles;
  /// coarse_neighbours(b * 3^Dim + dir): the block of the next coarser level's grid at direction
  /// `dir` (BlockShape::direction) of block b's parent, or absent_block (and on the coarsest level).
  Kokkos::View<const block_index_t*, MemorySpace> coarse_neighbours;
  /// children(b * 2^Dim + k): child k (bits x, y, z of k) of overlap block b in the next finer
  /// level's grid, or absent_block (other blocks, and the finest level).
  Kokkos::View<const block_index_t*, MemorySpace> children;
};

/// The levels of a refined grid as block-sparse grids of Dim dimensions and blocks of B voxels
/// along each axis (B the RefinedLevels' block edge), with the tables coupling them.
template <int Dim, int B = 4, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class RefinedGrid {
 public:
  using level_grid = BlockSparseGrid<Dim, B, MemorySpace>;
  using shape_type = BlockShape<Dim, B>;
  using view_type = RefinedLevelView<Dim, MemorySpace>;
  /// Children of a block.
  static constexpr int children_per_block = 1 << Dim;

  /// Whether voxel `voxel` (in its level's coordinates) of level `level` needs boundary code (a
  /// wall voxel, or one with a wall among its stencil neighbours: BlockSparseGrid's `boundary`);
  /// empty: none does.
  using Boundary = std::function<bool(int level, const std::array<int, 3>& voxel)>;

  /// Builds every level of `levels` on one rank (blocks of B voxels: its block edge must be B)
  /// and the tables, on the host, copied to MemorySpace. `grouping` tells each level's boundary
  /// blocks apart (block_sparse_grid.hpp), those holding a voxel `boundary` names and those at a
  /// closed side of the box. Throws karman::Error for another block edge.
  RefinedGrid(const std::string& label, const RefinedLevels<Dim>& levels,
              BlockGrouping grouping = BlockGrouping::memory, const Boundary& boundary = {})
      : RefinedGrid(label, levels, BlockPartition(std::vector<double>(std::size_t(coarsest_planes(levels)), 1.0), 1), 0,
                    grouping, boundary) {}

  /// Builds rank `rank`'s part of every level: the coarsest level's planes `partition` gives it
  /// (cut for instance by refined_plane_work(levels)), scaled to each finer level. Throws
  /// karman::Error for another block edge, or a partition of another number of planes.
  RefinedGrid(const std::string& label, const RefinedLevels<Dim>& levels, const BlockPartition& partition, int rank,
              BlockGrouping grouping = BlockGrouping::memory, const Boundary& boundary = {}) {
    if (levels.block_edge() != B) {
      throw Error("karman::RefinedGrid: the levels' block edge is " + std::to_string(levels.block_edge()) +
                  "; this grid's blocks have " + std::to_string(B) + " voxels along each axis");
    }
    if (partition.planes() != coarsest_planes(levels)) {
      throw Error("karman::RefinedGrid: the partition cuts " + std::to_string(partition.planes()) +
                  " block planes; the coarsest level has " + std::to_string(coarsest_planes(levels)));
    }
    const std::array<bool, 3> periodic{levels.periodic(0), levels.periodic(1), levels.periodic(2)};
    const int top = levels.levels() - 1;
    m_levels.reserve(std::size_t(levels.levels()));
    for (int l = 0; l <= top; ++l) {
      // Each role its own run of the level grid's blocks (its kind), so that a kernel of its own
      // serves each: the fused update away from a level jump (Meneghin & Mahmoud §V).
      std::vector<typename level_grid::ActiveBlock> blocks;
      for (const LevelBlock& b : levels.leaves(l)) {
        const RefinedBlockRole role =
            levels.touches_another_level(l, b.at) ? RefinedBlockRole::leaf_at_jump : RefinedBlockRole::leaf;
        blocks.push_back({b.at, shape_type::full_mask, int(role)});
      }
      for (const LevelBlock& b : levels.overlaps(l))
        blocks.push_back({b.at, shape_type::full_mask, int(RefinedBlockRole::overlap)});
      Level& level = m_levels.emplace_back();
      // One rank's level without a block (every block refined without an overlap, or a finer
      // level the refinement did not reach) has no grid; a rank among several keeps an empty one.
      if (blocks.empty() && partition.ranks() == 1) continue;
      level.grid.emplace(
          label + "_level" + std::to_string(l), levels.extents(l), periodic, partition.owned(rank, top - l), blocks,
          [&](int x, int y, int z) {
            return boundary && boundary(l, {x, y, z});
          },
          grouping);
      for (block_index_t b = 0; b < level.grid->block_count(); ++b)
        level.index.emplace(level_block_key(coordinates(*level.grid, b)), b);
    }
    for (int l = 0; l <= top; ++l) build_tables(levels, l);
  }

  /// Levels, the finest being 0.
  int levels() const { return int(m_levels.size()); }
  /// True when `level` stores no block (every block refined without an overlap, or a finer level
  /// the refinement did not reach).
  bool empty(int level) const { return !at_level(level).grid; }
  /// The block-sparse grid of `level`: its leaves and overlap blocks. Throws karman::Error for an
  /// empty level.
  const level_grid& level(int level) const {
    const Level& lv = at_level(level);
    if (!lv.grid) throw Error("karman::RefinedGrid: level " + std::to_string(level) + " stores no block");
    return *lv.grid;
  }
  /// The coupling tables of `level`, for kernels.
  const view_type& view(int level) const { return at_level(level).view; }

  /// The stored block (owned or halo) at block coordinates `at` of `level`, wrapped along
  /// periodic axes, or absent_block.
  block_index_t block_at(int level, std::array<int, 3> at) const {
    const Level& lv = at_level(level);
    if (!lv.grid) return absent_block;
    const level_grid& grid = *lv.grid;
    if (!wrap_block<Dim>(level_grid::block_lattice(grid.extents()),
                         {grid.periodic(0), grid.periodic(1), grid.periodic(2)}, at)) {
      return absent_block;
    }
    const auto found = lv.index.find(level_block_key(at));
    return found == lv.index.end() ? absent_block : found->second;
  }

  /// What stored block b of `level` is (host copy).
  RefinedBlockRole role(int level, block_index_t b) const {
    return RefinedBlockRole(at_level(level).roles(std::size_t(b)));
  }
  /// Whether voxel `voxel` of `level`'s grid is a leaf voxel (its block not an overlap block).
  bool leaf(int level, index_t voxel) const {
    return role(level, block_index_t(voxel / shape_type::voxels)) != RefinedBlockRole::overlap;
  }
  /// Coordinates on `level` (in its voxels) of voxel `voxel` of that level's grid.
  std::array<int, 3> voxel_coordinates(int level, index_t voxel) const {
    std::array<int, 3> x = this->level(level).origin(block_index_t(voxel / shape_type::voxels));
    for (int a = 0; a < Dim; ++a) x[std::size_t(a)] += shape_type::local_coordinate(int(voxel % shape_type::voxels), a);
    return x;
  }
  /// The block of level + 1's grid at direction `dir` (BlockShape::direction) of the parent of
  /// block b of `level`, or absent_block (host copy).
  block_index_t coarse_neighbour(int level, block_index_t b, int dir) const {
    return at_level(level).coarse_neighbours(std::size_t(b) * shape_type::directions + std::size_t(dir));
  }
  /// Child k of overlap block b of `level` in level - 1's grid, or absent_block (host copy).
  block_index_t child(int level, block_index_t b, int k) const {
    return at_level(level).children(std::size_t(b) * children_per_block + std::size_t(k));
  }

 private:
  struct Level {
    std::optional<level_grid> grid;
    std::unordered_map<std::uint64_t, block_index_t> index;  ///< stored blocks by Morton key
    // The host tables; view holds their copies in MemorySpace (the same Views on a host backend).
    Kokkos::View<std::uint8_t*, Kokkos::HostSpace> roles;
    Kokkos::View<block_index_t*, Kokkos::HostSpace> coarse_neighbours;
    Kokkos::View<block_index_t*, Kokkos::HostSpace> children;
    view_type view;
  };

  const Level& at_level(int level) const {
    if (level < 0 || level >= levels()) {
      throw Error("karman::RefinedGrid: level " + std::to_string(level) + "; accepted: 0 to " +
                  std::to_string(levels() - 1));
    }
    return m_levels[std::size_t(level)];
  }

  static int coarsest_planes(const RefinedLevels<Dim>& levels) {
    return levels.block_lattice(levels.levels() - 1).extent(Dim - 1);
  }

  /// Block coordinates of stored block b of `grid`.
  static std::array<int, 3> coordinates(const level_grid& grid, block_index_t b) {
    const std::array<int, 3> o = grid.origin(b);
    return {o[0] / B, o[1] / B, o[2] / B};
  }

  void build_tables(const RefinedLevels<Dim>& levels, int l) {
    Level& level = m_levels[std::size_t(l)];
    if (!level.grid) return;
    const level_grid& grid = *level.grid;
    const auto n = std::size_t(grid.block_count());
    level.roles = decltype(level.roles)("karman::refined_roles", n);  // zeros: RefinedBlockRole::leaf
    level.coarse_neighbours =
        decltype(level.coarse_neighbours)("karman::refined_coarse_neighbours", n * shape_type::directions);
    level.children = decltype(level.children)("karman::refined_children", n * children_per_block);
    Kokkos::deep_copy(level.coarse_neighbours, absent_block);
    Kokkos::deep_copy(level.children, absent_block);
    for (block_index_t b = 0; b < grid.block_count(); ++b) {
      const std::array<int, 3> at = coordinates(grid, b);
      level.roles(std::size_t(b)) = std::uint8_t(grid.kind(b));
      if (RefinedBlockRole(grid.kind(b)) == RefinedBlockRole::overlap) {
        for (int k = 0; k < children_per_block; ++k) {
          const std::array<int, 3> c{2 * at[0] + (k & 1), 2 * at[1] + ((k >> 1) & 1),
                                     Dim == 3 ? 2 * at[2] + (k >> 2) : 0};
          level.children(std::size_t(b) * children_per_block + std::size_t(k)) = block_at(l - 1, c);
        }
      }
      if (l + 1 < levels.levels()) {
        const std::array<int, 3> p = RefinedLevels<Dim>::parent(at);
        for (int dir = 0; dir < shape_type::directions; ++dir) {
          const std::array<int, 3> q{p[0] + shape_type::direction_offset(dir, 0),
                                     p[1] + shape_type::direction_offset(dir, 1),
                                     Dim == 3 ? p[2] + shape_type::direction_offset(dir, 2) : 0};
          level.coarse_neighbours(std::size_t(b) * shape_type::directions + std::size_t(dir)) = block_at(l + 1, q);
        }
      }
    }
    level.view.roles = Kokkos::create_mirror_view_and_copy(MemorySpace(), level.roles);
    level.view.coarse_neighbours = Kokkos::create_mirror_view_and_copy(MemorySpace(), level.coarse_neighbours);
    level.view.children = Kokkos::create_mirror_view_and_copy(MemorySpace(), level.children);
  }

  std::vector<Level> m_levels;
};

}  // namespace karman
