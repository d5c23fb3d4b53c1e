// The ranks of a run as one process, as every build has them (with MPI or without): each
// collective is the identity, and an error becomes a CollectiveError of rank 0 that main prints
// once and leaves with 1.
#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace {

using karman::comm::CollectiveError;
using karman::comm::Ranks;

TEST(OneProcess, IsRankZeroOfOne) {
  const Ranks ranks;
  EXPECT_EQ(ranks.rank(), 0);
  EXPECT_EQ(ranks.size(), 1);
  EXPECT_TRUE(ranks.root());
}

TEST(OneProcess, ReductionsAndGathersReturnItsOwnValues) {
  const Ranks ranks;
  EXPECT_EQ(ranks.sum(2.5), 2.5);
  EXPECT_EQ(ranks.max(-3.0), -3.0);
  EXPECT_EQ(ranks.bitwise_or(0b1010u), 0b1010u);
  EXPECT_TRUE(ranks.any(true));
  EXPECT_FALSE(ranks.any(false));
  ranks.barrier();
  EXPECT_EQ(ranks.gather({1.0, 2.0, 3.0}), (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(ranks.all_gather({7, -8}), (std::vector<long long>{7, -8}));
}

TEST(OneProcess, RunReturnsTheResultOrThrowsACollectiveErrorWithTheMessage) {
  const Ranks ranks;
  EXPECT_EQ(ranks.run([] { return std::string("built"); }), "built");
  try {
    ranks.run([] { throw karman::Error("karman::Field: cardinality Q = 0 out of range [1, 27]"); });
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.failing_rank(), 0);
    EXPECT_EQ(std::string(e.what()), "karman::Field: cardinality Q = 0 out of range [1, 27]");
  }
  // Not only karman::Error: anything derived from std::exception, and anything else by name.
  try {
    ranks.run([] { throw std::runtime_error("disk full"); });
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(std::string(e.what()), "disk full");
  }
  try {
    ranks.run([] { throw 42; });
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown exception"), std::string::npos) << e.what();
  }
}

TEST(OneProcess, RunGuardedPrintsTheErrorOnceAndReturnsOne) {
  const Ranks ranks;
  EXPECT_EQ(ranks.run_guarded([] { return 3; }), 3);

  ::testing::internal::CaptureStderr();
  const int collective = ranks.run_guarded([&] {
    ranks.run([] { throw karman::Error("bad tau"); });
    return 0;
  });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "karman: error: bad tau\n");
  EXPECT_EQ(collective, 1);

  // A lone process has no rank waiting for it: it returns instead of aborting.
  ::testing::internal::CaptureStderr();
  const int alone = ranks.run_guarded([]() -> int { throw std::runtime_error("inside the time loop"); });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "karman: error: inside the time loop\n");
  EXPECT_EQ(alone, 1);
}

}  // namespace
