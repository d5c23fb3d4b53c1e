// The ranks of MPI_COMM_WORLD under mpirun at 1-4 ranks: reductions and gathers give every rank's
// values in rank order, and an error on some ranks reaches every rank as one CollectiveError
// carrying the lowest failing rank's message (docs/architecture.md, comm::Ranks: "every rank agrees and nothing
// hangs").
#include "mpi_test.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace karman::comm {
namespace {

class RanksTest : public test::MpiTest {
 protected:
  const Ranks world{MPI_COMM_WORLD};
};

TEST_F(RanksTest, KnowsItsRankAndSize) {
  EXPECT_EQ(world.rank(), rank);
  EXPECT_EQ(world.size(), ranks);
  EXPECT_EQ(world.root(), rank == 0);
  EXPECT_EQ(world.comm(), MPI_COMM_WORLD);
}

TEST_F(RanksTest, ReductionsSeeEveryRank) {
  // Rank r contributes r + 1: the sum is n (n + 1) / 2, the maximum n, bit r set in the OR.
  EXPECT_EQ(world.sum(rank + 1.0), ranks * (ranks + 1) / 2.0);
  EXPECT_EQ(world.max(rank + 1.0), double(ranks));
  EXPECT_EQ(world.bitwise_or(1u << rank), (1u << ranks) - 1u);
  EXPECT_FALSE(world.any(false));
  EXPECT_TRUE(world.any(rank == ranks - 1));
  EXPECT_TRUE(world.any(true));
  // 64-bit unsigned counts past what long long holds add exactly: rank r gives its share of 2^63 plus r.
  std::uint64_t counts[2] = {(std::uint64_t(1) << 63) / std::uint64_t(ranks) + std::uint64_t(rank), 1};
  world.sum_in_place(counts, 2);
  EXPECT_EQ(counts[0], (std::uint64_t(1) << 63) / std::uint64_t(ranks) * std::uint64_t(ranks) +
                           std::uint64_t(ranks) * std::uint64_t(ranks - 1) / 2);
  EXPECT_EQ(counts[1], std::uint64_t(ranks));
}

TEST_F(RanksTest, GatherPutsEveryRanksValuesInRankOrderOnRankZero) {
  // Rank r sends r + 1 values 100 r, 100 r + 1, ...: uneven counts, each value naming its sender.
  std::vector<double> mine;
  for (int i = 0; i <= rank; ++i) mine.push_back(100.0 * rank + i);
  const std::vector<double> all = world.gather(mine);
  if (rank != 0) {
    EXPECT_TRUE(all.empty()) << all.size() << " values on rank " << rank;
    return;
  }
  std::vector<double> expected;
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i <= r; ++i) expected.push_back(100.0 * r + i);
  EXPECT_EQ(all, expected);
}

TEST_F(RanksTest, AllGatherPutsEveryRanksValuesInRankOrderOnEveryRank) {
  const std::vector<long long> all = world.all_gather({rank, -10LL * rank});
  std::vector<long long> expected;
  for (int r = 0; r < ranks; ++r) expected.insert(expected.end(), {r, -10LL * r});
  EXPECT_EQ(all, expected);
}

TEST_F(RanksTest, AnErrorOnRankOneOnlyReachesEveryRankWithItsMessage) {
  const int failing = ranks > 1 ? 1 : 0;
  try {
    world.run([&] {
      if (rank == failing) throw Error("bad input on rank " + std::to_string(rank));
    });
    ADD_FAILURE() << "no error on rank " << rank;
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.failing_rank(), failing);
    EXPECT_EQ(std::string(e.what()), "bad input on rank " + std::to_string(failing));
  }
}

TEST_F(RanksTest, TheLowestFailingRankSpeaksForAll) {
  try {
    world.run([&] {
      if (rank >= ranks / 2) throw std::runtime_error("rank " + std::to_string(rank));
    });
    ADD_FAILURE() << "no error on rank " << rank;
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.failing_rank(), ranks / 2);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(ranks / 2));
  }
  // No failure: every rank gets its own result.
  EXPECT_EQ(world.run([&] { return rank * 2; }), rank * 2);
}

}  // namespace
}  // namespace karman::comm
