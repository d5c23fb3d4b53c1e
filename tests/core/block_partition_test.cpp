// Cuts of block planes among ranks (block_partition.hpp): every plane owned once, at least two a
// rank, the work balanced to within a plane, the cuts shared by a refined grid's levels.
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_partition.hpp>

#include "../common/expect_error.hpp"
#include "random_refinement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace karman;

/// Every plane owned by one rank, in rank order, at least `least` planes each; the work adds up.
void expect_cover(const BlockPartition& p, const std::vector<double>& work, int least) {
  int next = 0;
  double total = 0;
  for (int r = 0; r < p.ranks(); ++r) {
    const OwnedBlockPlanes o = p.owned(r);
    EXPECT_EQ(o.begin, next) << "rank " << r;
    EXPECT_GE(o.count, least) << "rank " << r;
    next = o.begin + o.count;
    const double sum = std::accumulate(work.begin() + o.begin, work.begin() + next, 0.0);
    EXPECT_NEAR(p.work(r), sum, 1e-12 * (1 + sum)) << "rank " << r;
    total += p.work(r);
  }
  EXPECT_EQ(next, int(work.size()));
  const double all = std::accumulate(work.begin(), work.end(), 0.0);
  EXPECT_NEAR(total, all, 1e-12 * (1 + all));
}

TEST(BlockPartition, EvenWorkEvenCuts) {
  const std::vector<double> work(16, 3.0);
  const BlockPartition p(work, 4);
  expect_cover(p, work, 2);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(p.owned(r).begin, 4 * r);
  const BlockPartition one(work, 1);
  EXPECT_EQ(one.owned(0).count, 16);
}

// Random work: each cut lies within half a plane of its share, so each rank's work is within one
// plane's work of the even share.
TEST(BlockPartition, BalancedToWithinAPlane) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> draw(0.0, 10.0);
  for (int ranks : {2, 3, 5, 8}) {
    std::vector<double> work(64);
    for (double& w : work) w = draw(random);
    const BlockPartition p(work, ranks);
    expect_cover(p, work, 2);
    const double share = std::accumulate(work.begin(), work.end(), 0.0) / ranks;
    const double plane = *std::max_element(work.begin(), work.end());
    for (int r = 0; r < ranks; ++r) EXPECT_LE(std::abs(p.work(r) - share), plane) << ranks << " ranks, rank " << r;
  }
}

// All the work in the last two planes, which the last rank must own together (two planes each):
// the planes without work are shared out evenly.
TEST(BlockPartition, PlanesWithoutWorkAreSharedEvenly) {
  std::vector<double> work(12, 0.0);
  work[10] = work[11] = 1.0;
  const BlockPartition p(work, 3);
  expect_cover(p, work, 2);
  EXPECT_EQ(p.work(2), 2.0);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(p.owned(r).count, 4) << "rank " << r;
}

// A refined grid's levels share the cuts of the coarsest level: rank r's planes on level l are
// its coarse planes times 2^(levels - 1 - l), so every leaf lies on the rank that owns its
// coarse plane, and the work per plane counts each level's steps.
TEST(BlockPartition, RefinedLevelsShareTheCoarseCuts) {
  const RefinedLevels<3> levels({16, 16, 32}, 4, {false, false, true}, 3, test::RandomRefinement{11, 3});
  const std::vector<double> work = refined_plane_work(levels);
  ASSERT_EQ(work.size(), 8u);
  double expected = 0;
  for (int l = 0; l < 3; ++l) expected += double(levels.leaves(l).size()) * 64 * (1 << (2 - l));
  EXPECT_DOUBLE_EQ(std::accumulate(work.begin(), work.end(), 0.0), expected);
  const BlockPartition p(work, 3);
  expect_cover(p, work, 2);
  for (int l = 0; l < 3; ++l) {
    const int k = 2 - l;
    std::vector<int> owners(std::size_t(levels.block_lattice(l).nz), -1);
    for (int r = 0; r < 3; ++r) {
      const OwnedBlockPlanes o = p.owned(r, k);
      EXPECT_EQ(o.begin, p.owned(r).begin << k);
      for (int z = o.begin; z < o.begin + o.count; ++z) owners[std::size_t(z)] = r;
    }
    for (const LevelBlock& b : levels.leaves(l)) {
      const int coarse = b.at[2] >> k;
      const int owner = owners[std::size_t(b.at[2])];
      ASSERT_GE(owner, 0);
      EXPECT_GE(coarse, p.owned(owner).begin);
      EXPECT_LT(coarse, p.owned(owner).begin + p.owned(owner).count);
    }
  }
}

TEST(BlockPartition, RefusesBadInput) {
  const std::vector<double> work(6, 1.0);
  test::expect_error([&] { BlockPartition(work, 0); }, {"0 ranks", "1 or more"});
  test::expect_error([&] { BlockPartition(work, 4); }, {"4 ranks share 6 block planes", "at most 3 ranks"});
  test::expect_error([&] { BlockPartition({1.0, -2.0, 1.0, 1.0}, 2); }, {"plane 1", "-2.0", "0 or more"});
  const BlockPartition p(work, 3);
  test::expect_error([&] { p.owned(3); }, {"rank 3", "0 to 2"});
}

}  // namespace
