#pragma once
// A GoogleTest fixture for tests run on every rank: a check that fails on one rank fails the
// test on every rank, so rank 0's report (the only one printed in full) tells the truth.
// Tests must reach TearDown on every rank: use EXPECT_* (not ASSERT_*) before collective calls.

#include <karman/comm/ranks.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

namespace karman::test {

/// Rank and size of MPI_COMM_WORLD, and the collective verdict in TearDown.
class MpiTest : public ::testing::Test {
 protected:
  MpiTest() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
  void TearDown() override {
    const bool failed_here = HasFailure();
    if (comm::Ranks(MPI_COMM_WORLD).any(failed_here) && !failed_here) ADD_FAILURE() << "failed on another rank";
  }

  int rank = 0;
  int ranks = 1;
};

}  // namespace karman::test
