// A refined grid's level grids and coupling tables (refined_grid.hpp): every level holds its
// leaves and overlap blocks; every fine voxel next to a jump finds the coarse voxel its upwind
// neighbour lies in through coarse_neighbour() (explosion), and every coarse leaf voxel finds the
// fine voxels under an upwind overlap voxel through child() (coalescence); the device tables
// equal the host ones.
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_partition.hpp>
#include <karman/core/sparse/block_shape.hpp>

#include "../common/expect_error.hpp"
#include "random_refinement.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace karman;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

/// Floor division (negative coordinates lie past a periodic side).
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Block coordinates of voxel `x` (inside the box) for blocks of B voxels.
template <int B>
std::array<int, 3> block_coordinates(const std::array<int, 3>& x) {
  return {x[0] / B, x[1] / B, x[2] / B};
}

/// The first voxel of the block of B voxels holding voxel `x`.
template <int B>
std::array<int, 3> block_origin(const std::array<int, 3>& x) {
  return {x[0] / B * B, x[1] / B * B, x[2] / B * B};
}

bool is_leaf(RefinedBlockRole r) { return r == RefinedBlockRole::leaf || r == RefinedBlockRole::leaf_at_jump; }

/// Checks roles, explosion and coalescence look-ups of the owned blocks of `grid` (one rank's
/// part of `levels`, or all of it); adds how many explosion and coalescence look-ups were checked
/// to `checked`.
template <int Dim, int B>
void expect_coupled(const RefinedLevels<Dim>& levels, const RefinedGrid<Dim, B, Space>& grid, const std::string& what,
                    std::array<int, 2>& checked, bool one_rank = true) {
  using Shape = BlockShape<Dim, B>;
  const std::array<bool, 3> periodic{levels.periodic(0), levels.periodic(1), levels.periodic(2)};
  const int dz = Dim == 3 ? 1 : 0;
  for (int l = 0; l < grid.levels(); ++l) {
    const std::size_t blocks = levels.leaves(l).size() + levels.overlaps(l).size();
    if (one_rank) {
      ASSERT_EQ(grid.empty(l), blocks == 0) << what;
    }
    if (grid.empty(l)) continue;
    const auto& g = grid.level(l);
    if (one_rank) {
      EXPECT_EQ(std::size_t(g.block_count()), blocks) << what;
    }
    // Each role is a run of the level's interior blocks (Meneghin & Mahmoud §V's memory grouping).
    const BlockRange interior = g.group_blocks(g.interior_group());
    for (int kind = 0; kind < 3; ++kind) {
      const BlockRange run = g.span(BlockSet::all, kind);
      EXPECT_EQ(run.begin, kind == 0 ? interior.begin : g.span(BlockSet::all, kind - 1).end) << what;
      for (block_index_t b = run.begin; b < run.end; ++b) {
        ASSERT_EQ(int(grid.role(l, b)), kind) << what;
      }
    }
    EXPECT_EQ(g.span(BlockSet::all, 2).end, interior.end) << what;
    const BlockRange owned = g.owned_blocks();
    for (block_index_t b = owned.begin; b < owned.end; ++b) {
      const std::array<int, 3> o = g.origin(b);
      const LevelBlockCoordinates at{o[0] / B, o[1] / B, o[2] / B};
      const RefinedBlockRole role = grid.role(l, b);
      const LevelCover cover = levels.cover(l, at);
      if (cover == LevelCover::refined) {
        ASSERT_EQ(role, RefinedBlockRole::overlap) << what;
      } else {
        ASSERT_EQ(cover, LevelCover::leaf) << what;
        ASSERT_EQ(role, levels.touches_another_level(l, at) ? RefinedBlockRole::leaf_at_jump : RefinedBlockRole::leaf)
            << what;
      }
      if (!is_leaf(role)) continue;
      for (int local = 0; local < Shape::voxels; ++local) {
        std::array<int, 3> x{};
        for (int a = 0; a < 3; ++a) x[std::size_t(a)] = o[std::size_t(a)] + Shape::local_coordinate(local, a);
        for (int cz = -dz; cz <= dz; ++cz)
          for (int cy = -1; cy <= 1; ++cy)
            for (int cx = -1; cx <= 1; ++cx) {
              std::array<int, 3> p{x[0] - cx, x[1] - cy, x[2] - cz};  // upwind, unwrapped
              std::array<int, 3> pw = p;
              if (!wrap_block<Dim>(g.extents(), periodic, pw)) continue;
              const block_index_t pb = grid.block_at(l, block_coordinates<B>(pw));
              if (pb == absent_block) {
                // Explosion: the coarse voxel under p, through the parent's neighbourhood.
                ASSERT_EQ(role, RefinedBlockRole::leaf_at_jump)
                    << what << ": a leaf away from a jump reads a coarser voxel";
                ASSERT_LT(l + 1, grid.levels()) << what;
                std::array<int, 3> q{floor_div(p[0], 2), floor_div(p[1], 2), Dim == 3 ? floor_div(p[2], 2) : 0};
                int d[3] = {0, 0, 0};
                for (int a = 0; a < Dim; ++a) {
                  d[a] = floor_div(q[std::size_t(a)], B) - (at[std::size_t(a)] >> 1);
                  ASSERT_GE(d[a], -1) << what;
                  ASSERT_LE(d[a], 1) << what;
                }
                const auto& coarse = grid.level(l + 1);
                ASSERT_TRUE(wrap_block<Dim>(coarse.extents(), periodic, q)) << what;
                const block_index_t cb = grid.coarse_neighbour(l, b, Shape::direction(d[0], d[1], d[2]));
                ASSERT_NE(cb, absent_block) << what << ": explosion finds no coarse block, level " << l;
                ASSERT_EQ(coarse.origin(cb), block_origin<B>(q)) << what;
                ASSERT_TRUE(is_leaf(grid.role(l + 1, cb))) << what << ": explosion reads an overlap block";
                ++checked[0];
              } else if (grid.role(l, pb) == RefinedBlockRole::overlap) {
                // Coalescence: the fine voxels under the overlap voxel pw, through the children.
                ASSERT_GE(l, 1) << what;
                const auto& fine = grid.level(l - 1);
                const std::array<int, 3> ob = {g.origin(pb)[0] / B, g.origin(pb)[1] / B, g.origin(pb)[2] / B};
                for (int k = 0; k < (1 << Dim); ++k) {
                  const std::array<int, 3> f{2 * pw[0] + (k & 1), 2 * pw[1] + ((k >> 1) & 1),
                                             Dim == 3 ? 2 * pw[2] + (k >> 2) : 0};
                  int child = 0;
                  for (int a = 0; a < Dim; ++a) child |= (f[std::size_t(a)] / B - 2 * ob[std::size_t(a)]) << a;
                  const block_index_t fb = grid.child(l, pb, child);
                  ASSERT_NE(fb, absent_block) << what << ": coalescence finds no fine block, level " << l;
                  ASSERT_EQ(fine.origin(fb), block_origin<B>(f)) << what;
                  ASSERT_TRUE(is_leaf(grid.role(l - 1, fb))) << what << ": coalescence gathers from an overlap block";
                }
                ++checked[1];
              }
            }
      }
    }
  }
}

TEST(RefinedGrid, LevelsCoupleThroughTheirTables) {
  std::array<int, 2> total{0, 0};
  for (std::uint64_t seed : {1u, 2u}) {
    for (bool periodic : {false, true}) {
      const std::string what = "seed " + std::to_string(seed) + (periodic ? " periodic" : " closed");
      const RefinedLevels<3> l3({12, 8, 8}, 4, {periodic, periodic, periodic}, 3, test::RandomRefinement{seed, 4});
      const RefinedGrid<3, 4, Space> g3("refined", l3);
      expect_coupled(l3, g3, "3D " + what, total);
      const RefinedLevels<2> l2({32, 24, 1}, 8, {periodic, periodic, false}, 3, test::RandomRefinement{seed, 3});
      const RefinedGrid<2, 8, Space> g2("refined", l2);
      expect_coupled(l2, g2, "2D " + what, total);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(total[0], 0) << "no explosion look-up was checked";
  EXPECT_GT(total[1], 0) << "no coalescence look-up was checked";
}

// Ranks cut the coarsest level by its work and every level shares the cuts: the ranks' owned
// blocks cover each level once, and each rank's owned blocks find every coarser and overlap
// voxel they read through its tables, halo blocks included.
TEST(RefinedGrid, RanksShareTheCutsAndCoupleThroughTheirHalos) {
  std::array<int, 2> total{0, 0};
  for (bool periodic : {false, true}) {
    const RefinedLevels<3> levels({8, 8, 32}, 4, {periodic, periodic, periodic}, 3, test::RandomRefinement{9, 3});
    for (int ranks : {2, 3}) {
      const std::string what = std::to_string(ranks) + " ranks" + (periodic ? " periodic" : " closed");
      const BlockPartition partition(refined_plane_work(levels), ranks);
      std::vector<std::vector<int>> owners(3);
      for (int l = 0; l < 3; ++l) owners[std::size_t(l)].assign(std::size_t(levels.block_lattice(l).size()), 0);
      for (int r = 0; r < ranks; ++r) {
        const RefinedGrid<3, 4, Space> grid("refined", levels, partition, r);
        expect_coupled(levels, grid, what + ", rank " + std::to_string(r), total, false);
        if (HasFatalFailure()) return;
        for (int l = 0; l < 3; ++l) {
          const auto& g = grid.level(l);
          const Extents& lattice = levels.block_lattice(l);
          for (block_index_t b = g.owned_blocks().begin; b < g.owned_blocks().end; ++b) {
            const std::array<int, 3> o = g.origin(b);
            ++owners[std::size_t(l)][std::size_t(lattice.index(o[0] / 4, o[1] / 4, o[2] / 4))];
          }
        }
      }
      for (int l = 0; l < 3; ++l) {
        std::vector<int> expected(owners[std::size_t(l)].size(), 0);
        const Extents& lattice = levels.block_lattice(l);
        for (const LevelBlock& b : levels.leaves(l))
          expected[std::size_t(lattice.index(b.at[0], b.at[1], b.at[2]))] = 1;
        for (const LevelBlock& b : levels.overlaps(l))
          expected[std::size_t(lattice.index(b.at[0], b.at[1], b.at[2]))] = 1;
        EXPECT_EQ(owners[std::size_t(l)], expected) << what << ": level " << l << " owned once by the ranks";
      }
    }
  }
  EXPECT_GT(total[0], 0) << "no explosion look-up was checked";
  EXPECT_GT(total[1], 0) << "no coalescence look-up was checked";
}

// The device tables equal the host ones (a kernel counts what it finds).
TEST(RefinedGrid, DeviceTablesEqualTheHosts) {
  const RefinedLevels<3> levels({8, 8, 8}, 4, {true, true, true}, 3, test::RandomRefinement{5, 3});
  const RefinedGrid<3, 4, Space> grid("refined", levels);
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const auto view = grid.view(l);
    const block_index_t blocks = grid.level(l).block_count();
    std::int64_t host = 0;
    for (block_index_t b = 0; b < blocks; ++b) {
      host += std::int64_t(grid.role(l, b)) * 1000003;
      for (int d = 0; d < 27; ++d) host += grid.coarse_neighbour(l, b, d) + 1;
      for (int k = 0; k < 8; ++k) host += 7 * (grid.child(l, b, k) + 1);
    }
    std::int64_t device = 0;
    Kokkos::parallel_reduce(
        "sum", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, blocks),
        KOKKOS_LAMBDA(int b, std::int64_t& sum) {
          sum += std::int64_t(view.roles(b)) * 1000003;
          for (int d = 0; d < 27; ++d) sum += view.coarse_neighbours(b * 27 + d) + 1;
          for (int k = 0; k < 8; ++k) sum += 7 * (view.children(b * 8 + k) + 1);
        },
        device);
    EXPECT_EQ(device, host) << "level " << l;
  }
}

TEST(RefinedGrid, RefusesAnotherBlockEdge) {
  const RefinedLevels<3> levels({16, 16, 16}, 8, {false, false, false}, 2,
                                [](int, const LevelBlockCoordinates&) { return false; });
  test::expect_error([&] { RefinedGrid<3, 4, Space>("refined", levels); }, {"block edge is 8", "4 voxels"});
  const RefinedGrid<3, 4, Space> ok("refined",
                                    RefinedLevels<3>({8, 8, 8}, 4, {false, false, false}, 2,
                                                     [](int, const LevelBlockCoordinates&) { return false; }));
  test::expect_error([&] { ok.level(2); }, {"level 2", "0 to 1"});
  // Nothing refined: level 0 holds no block.
  EXPECT_TRUE(ok.empty(0));
  EXPECT_FALSE(ok.empty(1));
  test::expect_error([&] { ok.level(0); }, {"level 0 stores no block"});
}

}  // namespace
