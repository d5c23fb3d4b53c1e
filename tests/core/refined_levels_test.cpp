// The levels of a refined block-sparse grid (refined_levels.hpp): the leaves of all levels cover
// the box once, refinement is 2:1 balanced over the 26-neighbourhood, overlap blocks and level
// jumps are where the coupling of levels needs them, set-up asks about existing blocks only, and
// a level's blocks build a BlockSparseGrid.
#include <karman/core/morton.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>

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

/// Coordinates of a block of `lattice` from its index, x fastest.
LevelBlockCoordinates block_at(const Extents& lattice, index_t k) {
  return {int(k % lattice.nx), int(k / lattice.nx % lattice.ny), int(k / (index_t(lattice.nx) * lattice.ny))};
}

/// Every block position of the finest lattice lies in exactly one leaf (that of the first level,
/// finest first, whose ancestor block is a leaf), and no finer level holds a block there.
template <int Dim>
void expect_leaves_cover_the_box_once(const RefinedLevels<Dim>& r, const std::string& what) {
  const Extents& fine = r.block_lattice(0);
  for (index_t k = 0; k < fine.size(); ++k) {
    const LevelBlockCoordinates at = block_at(fine, k);
    int leaves = 0;
    for (int l = 0; l < r.levels(); ++l) {
      const LevelBlockCoordinates a{at[0] >> l, at[1] >> l, at[2] >> l};
      const LevelCover c = r.cover(l, a);
      ASSERT_NE(c, LevelCover::outside) << what;
      if (c == LevelCover::leaf) ++leaves;
      // Below the leaf no level holds the block, above it every level refines it.
      if (leaves == 0) {
        ASSERT_EQ(c, LevelCover::coarser) << what << " level " << l;
      }
      if (leaves == 1 && c != LevelCover::leaf) {
        ASSERT_EQ(c, LevelCover::refined) << what << " level " << l;
      }
    }
    ASSERT_EQ(leaves, 1) << what << ": finest block " << k;
  }
  // The same in volume: the leaves' spaces add up to the box.
  std::int64_t covered = 0;
  for (int l = 0; l < r.levels(); ++l) covered += std::int64_t(r.leaves(l).size()) << (Dim * l);
  EXPECT_EQ(covered, fine.size()) << what;
}

/// 2:1 balance: the 26 neighbours (8 in 2D) of every refined block exist on its level, so a
/// leaf's neighbours are leaves of its level or of the levels next to it; the flags and lists
/// say what cover() says.
template <int Dim>
void expect_balanced(const RefinedLevels<Dim>& r, const std::string& what) {
  const int dz = Dim == 3 ? 1 : 0;
  const auto neighbours = [&](const LevelBlockCoordinates& at, auto&& f) {
    for (int z = -dz; z <= dz; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x)
          if (x != 0 || y != 0 || z != 0) f(LevelBlockCoordinates{at[0] + x, at[1] + y, at[2] + z});
  };
  for (int l = 0; l < r.levels(); ++l) {
    for (const LevelBlock& b : r.refined(l)) {
      ASSERT_EQ(r.cover(l, b.at), LevelCover::refined) << what;
      neighbours(b.at, [&](const LevelBlockCoordinates& n) {
        EXPECT_NE(r.cover(l, n), LevelCover::coarser)
            << what << ": a refined block of level " << l << " beside the space of a coarser leaf";
      });
    }
    std::uint64_t previous = 0;
    for (const LevelBlock& b : r.leaves(l)) {
      ASSERT_EQ(r.cover(l, b.at), LevelCover::leaf) << what;
      const std::uint64_t k = morton_code(std::uint32_t(b.at[0]), std::uint32_t(b.at[1]), std::uint32_t(b.at[2]));
      EXPECT_TRUE(&b == r.leaves(l).data() || k > previous) << what << ": leaves in Morton order";
      previous = k;
      bool jump = false;
      neighbours(b.at, [&](const LevelBlockCoordinates& n) {
        const LevelCover c = r.cover(l, n);
        if (c == LevelCover::coarser) {
          jump = true;
          // The coarser leaf is one level up, never two.
          EXPECT_EQ(r.cover(l + 1, RefinedLevels<Dim>::parent(n)), LevelCover::leaf) << what << " level " << l;
        }
        if (c == LevelCover::refined) {
          jump = true;
          // Its children that touch this leaf are leaves: the finer neighbours are one level
          // down, never two. (Level l - 1 coordinates; n unwrapped, so adjacency is plain.)
          for (int k2 = 0; k2 < (1 << Dim); ++k2) {
            const LevelBlockCoordinates child{2 * n[0] + (k2 & 1), 2 * n[1] + ((k2 >> 1) & 1),
                                              Dim == 3 ? 2 * n[2] + (k2 >> 2) : 0};
            bool touches = true;
            for (int a = 0; a < Dim; ++a) {
              const int c = child[std::size_t(a)], lo = 2 * b.at[std::size_t(a)];
              touches = touches && c >= lo - 1 && c <= lo + 2;
            }
            if (touches) {
              EXPECT_EQ(r.cover(l - 1, child), LevelCover::leaf) << what << " level " << l;
            }
          }
        }
      });
      EXPECT_EQ(b.next_to_jump, jump) << what << ": leaf of level " << l;
    }
    for (const LevelBlock& b : r.overlaps(l)) {
      ASSERT_EQ(r.cover(l, b.at), LevelCover::refined) << what;
      bool beside_leaf = false;
      neighbours(b.at, [&](const LevelBlockCoordinates& n) {
        beside_leaf = beside_leaf || r.cover(l, n) == LevelCover::leaf;
      });
      EXPECT_TRUE(beside_leaf) << what << ": an overlap block of level " << l << " with no leaf beside it";
    }
  }
}

TEST(RefinedLevels, OneLevelIsTheWholeLattice) {
  std::int64_t asked = 0;
  const RefinedLevels<3> r({16, 8, 12}, 4, {false, false, false}, 1, [&](int, const LevelBlockCoordinates&) {
    ++asked;
    return true;
  });
  EXPECT_EQ(asked, 0);
  ASSERT_EQ(r.levels(), 1);
  EXPECT_EQ(r.leaves(0).size(), std::size_t(4 * 2 * 3));
  EXPECT_TRUE(r.overlaps(0).empty());
  for (const LevelBlock& b : r.leaves(0)) EXPECT_FALSE(b.next_to_jump);
  expect_leaves_cover_the_box_once(r, "one level");
}

TEST(RefinedLevels, UniformRefinementHasNoJumps) {
  const RefinedLevels<3> r({8, 8, 8}, 4, {true, true, true}, 3, [](int, const LevelBlockCoordinates&) { return true; });
  EXPECT_EQ(r.extents(0), (Extents{32, 32, 32}));
  EXPECT_EQ(r.block_lattice(2), (Extents{2, 2, 2}));
  EXPECT_EQ(r.leaves(0).size(), std::size_t(8 * 8 * 8));
  EXPECT_TRUE(r.leaves(1).empty());
  EXPECT_TRUE(r.leaves(2).empty());
  EXPECT_TRUE(r.overlaps(1).empty());
  EXPECT_TRUE(r.overlaps(2).empty());
  for (const LevelBlock& b : r.leaves(0)) EXPECT_FALSE(b.next_to_jump);
  expect_leaves_cover_the_box_once(r, "uniform");
  expect_balanced(r, "uniform");
}

// One refined coarse block in a closed box: its 8 children are level 0's leaves, all next to
// the jump; level 1's leaves are next to it where they touch it; it is level 1's one overlap block.
TEST(RefinedLevels, OneRefinedBlock) {
  const LevelBlockCoordinates centre{2, 2, 2};
  const RefinedLevels<3> r({20, 20, 20}, 4, {false, false, false}, 2,
                           [&](int level, const LevelBlockCoordinates& at) { return level == 1 && at == centre; });
  ASSERT_EQ(r.leaves(0).size(), 8u);
  for (const LevelBlock& b : r.leaves(0)) EXPECT_TRUE(b.next_to_jump);
  ASSERT_EQ(r.overlaps(1).size(), 1u);
  EXPECT_EQ(r.overlaps(1)[0].at, centre);
  EXPECT_EQ(r.leaves(1).size(), std::size_t(5 * 5 * 5 - 1));
  int jumps = 0;
  for (const LevelBlock& b : r.leaves(1)) {
    bool touches = true;
    for (int a = 0; a < 3; ++a) touches = touches && b.at[std::size_t(a)] >= 1 && b.at[std::size_t(a)] <= 3;
    EXPECT_EQ(b.next_to_jump, touches) << b.at[0] << " " << b.at[1] << " " << b.at[2];
    jumps += b.next_to_jump;
  }
  EXPECT_EQ(jumps, 26);
  EXPECT_EQ(r.cover(0, {0, 0, 0}), LevelCover::coarser);
  EXPECT_EQ(r.cover(0, {4, 5, 4}), LevelCover::leaf);
  EXPECT_EQ(r.cover(1, {5, 0, 0}), LevelCover::outside);
  EXPECT_EQ(r.finest_origin(1, centre), (std::array<int, 3>{16, 16, 16}));
  // A finest voxel's covering leaf: level 0 inside the refined block, level 1 around it.
  EXPECT_EQ(r.leaf_level({16, 16, 16}), 0);
  EXPECT_EQ(r.leaf_level({23, 20, 17}), 0);
  EXPECT_EQ(r.leaf_level({15, 16, 16}), 1);
  EXPECT_EQ(r.leaf_level({24, 16, 16}), 1);
  EXPECT_EQ(r.leaf_level({0, 39, 0}), 1);
  EXPECT_EQ(r.finest_span(1), 8);
  expect_leaves_cover_the_box_once(r, "one block");
  expect_balanced(r, "one block");
}

// A block refined three times down, in the corner of a periodic box: the balance refines the
// blocks around each level's refined block, across the periodic sides too.
TEST(RefinedLevels, BalanceRipplesUpAndAcrossPeriodicSides) {
  const RefinedLevels<3> r({16, 16, 16}, 4, {true, true, true}, 4, [](int, const LevelBlockCoordinates& at) {
    return at == LevelBlockCoordinates{0, 0, 0};
  });
  expect_leaves_cover_the_box_once(r, "corner");
  expect_balanced(r, "corner");
  // Level 1's refined block (0, 0, 0) needs its 26 neighbours on level 1, among them (-1, -1, -1)
  // = (15, 15, 15) across the periodic sides: its parent on level 2 is refined, and so on up.
  EXPECT_EQ(r.cover(1, {15, 15, 15}), LevelCover::leaf);
  EXPECT_EQ(r.cover(2, {7, 7, 7}), LevelCover::refined);
  EXPECT_EQ(r.cover(3, {3, 3, 3}), LevelCover::refined);
  // Closed sides need no neighbour past them.
  const RefinedLevels<3> closed({16, 16, 16}, 4, {false, false, false}, 4, [](int, const LevelBlockCoordinates& at) {
    return at == LevelBlockCoordinates{0, 0, 0};
  });
  EXPECT_EQ(closed.cover(3, {3, 3, 3}), LevelCover::leaf);
  EXPECT_LT(closed.stored_blocks(), r.stored_blocks());
  expect_leaves_cover_the_box_once(closed, "closed corner");
  expect_balanced(closed, "closed corner");
}

// Random rules in 2D and 3D, closed and periodic boxes, up to five levels.
TEST(RefinedLevels, RandomRefinementStaysBalancedAndCoversTheBox) {
  int checked = 0;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    for (bool periodic : {false, true}) {
      for (int levels : {2, 3, 5}) {
        const std::string what = "seed " + std::to_string(seed) + (periodic ? " periodic" : " closed") + " " +
                                 std::to_string(levels) + " levels";
        const RefinedLevels<3> r3({8, 12, 8}, 4, {periodic, periodic, periodic}, levels,
                                  test::RandomRefinement{seed, 5});
        expect_leaves_cover_the_box_once(r3, "3D " + what);
        expect_balanced(r3, "3D " + what);
        const RefinedLevels<2> r2({24, 16, 1}, 8, {periodic, periodic, false}, levels, test::RandomRefinement{seed, 3});
        expect_leaves_cover_the_box_once(r2, "2D " + what);
        expect_balanced(r2, "2D " + what);
        if (HasFatalFailure()) return;
        checked += r3.levels() > 1 && !r3.refined(1).empty();
      }
    }
  }
  EXPECT_GT(checked, 0) << "the rules refined nothing below the coarsest level";
}

// Set-up asks the rule about the blocks that exist only: a 1024^3 finest box over five levels
// with one point refined down to the finest level holds a few thousand blocks, not the 2^24 of
// its finest lattice.
TEST(RefinedLevels, SetUpAsksAboutExistingBlocksOnly) {
  std::int64_t asked = 0;
  const std::array<int, 3> point{517, 300, 900};  // finest voxels
  const auto rule = [&](int level, const LevelBlockCoordinates& at) {
    ++asked;
    const int span = 4 << level;
    for (int a = 0; a < 3; ++a)
      if (point[std::size_t(a)] / span != at[std::size_t(a)]) return false;
    return true;
  };
  const RefinedLevels<3> r({64, 64, 64}, 4, {false, false, false}, 5, rule);
  EXPECT_EQ(r.extents(0), (Extents{1024, 1024, 1024}));
  // 16^3 coarsest blocks, then the 8 children of the one refined block on each of levels 3, 2, 1.
  EXPECT_EQ(asked, 16 * 16 * 16 + 3 * 8);
  EXPECT_LT(r.stored_blocks(), 16 * 16 * 16 + 4 * 27 * 8);
  EXPECT_EQ(r.cover(0, {point[0] / 4, point[1] / 4, point[2] / 4}), LevelCover::leaf);
  expect_balanced(r, "one point");
}

// A level's leaves and overlap blocks are blocks of a BlockSparseGrid over the level's box.
TEST(RefinedLevels, LevelBuildsABlockSparseGrid) {
  using Grid = BlockSparseGrid<3, 4, Space>;
  const RefinedLevels<3> r({16, 16, 16}, 4, {true, true, true}, 3, test::RandomRefinement{7, 4});
  for (int l = 0; l < r.levels(); ++l) {
    std::vector<Grid::ActiveBlock> blocks;
    for (const LevelBlock& b : r.leaves(l)) blocks.push_back({b.at, ~Grid::mask_type(0)});
    for (const LevelBlock& b : r.overlaps(l)) blocks.push_back({b.at, ~Grid::mask_type(0)});
    if (blocks.empty()) continue;
    const Extents& lattice = r.block_lattice(l);
    const Grid grid("level", r.extents(l), {true, true, true}, OwnedBlockPlanes{0, lattice.nz}, blocks,
                    [](int, int, int) { return false; });
    EXPECT_EQ(std::size_t(grid.block_count()), blocks.size()) << "level " << l;
    for (const auto& b : blocks) {
      EXPECT_NE(grid.find(4 * b.at[0] + 1, 4 * b.at[1] + 2, 4 * b.at[2] + 3), absent_voxel) << "level " << l;
    }
  }
}

TEST(RefinedLevels, RefusesBadInput) {
  const auto none = [](int, const LevelBlockCoordinates&) { return false; };
  const std::array<bool, 3> closed{false, false, false};
  test::expect_error([&] { RefinedLevels<3>({8, 8, 8}, 4, closed, 0, none); }, {"0 levels", "1 to 5"});
  test::expect_error([&] { RefinedLevels<3>({8, 8, 8}, 4, closed, 6, none); }, {"6 levels", "1 to 5"});
  test::expect_error([&] { RefinedLevels<3>({8, 8, 8}, 0, closed, 2, none); }, {"block edge 0"});
  test::expect_error([&] { RefinedLevels<3>({8, 10, 8}, 4, closed, 2, none); }, {"ny = 10", "block edge 4"});
  test::expect_error([&] { RefinedLevels<2>({8, 8, 2}, 4, closed, 2, none); }, {"nz = 1", "2"});
  const RefinedLevels<2> r({8, 8, 1}, 4, closed, 2, none);
  test::expect_error([&] { r.leaves(2); }, {"level 2", "0 to 1"});
}

}  // namespace
