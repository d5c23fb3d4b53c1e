// Slab decomposition over the ranks of the run: each rank's slab is the
// SlabPartition of its rank, neighbours follow the end conditions, and errors that one rank
// finds during setup become the same error on every rank.
#include "mpi_test.hpp"

#include <karman/comm/collective_error.hpp>
#include <karman/comm/gpu_aware.hpp>
#include <karman/comm/slab_decomposition.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using namespace karman;
using comm::SlabDecomposition;
using comm::SlabEnds;

class DecompositionTest : public test::MpiTest {};

TEST_F(DecompositionTest, SlabIsThePartitionOfThisRank) {
  for (const Extents& box : {Extents{3, 2, 11}, Extents{5, 11, 1}}) {
    const SlabDecomposition dec(box, MPI_COMM_WORLD, SlabEnds::wall);
    const SlabPartition reference(box, rank, ranks);
    EXPECT_EQ(dec.rank(), rank);
    EXPECT_EQ(dec.ranks(), ranks);
    EXPECT_EQ(dec.partition().owned_begin(), reference.owned_begin());
    EXPECT_EQ(dec.partition().owned_planes(), reference.owned_planes());
    EXPECT_EQ(dec.partition().local(), reference.local());
  }
}

TEST_F(DecompositionTest, WallEndsHaveNoNeighbourBeyondThem) {
  const SlabDecomposition dec({3, 2, 11}, MPI_COMM_WORLD, SlabEnds::wall);
  const NeighbourStep lower = dec.partition().lower(), upper = dec.partition().upper();
  EXPECT_EQ(dec.neighbour(lower), rank == 0 ? MPI_PROC_NULL : rank - 1);
  EXPECT_EQ(dec.neighbour(upper), rank == ranks - 1 ? MPI_PROC_NULL : rank + 1);
  // A slab has no neighbour across its other faces, edges or corners.
  EXPECT_EQ(dec.neighbour(NeighbourStep::along(0, 1)), MPI_PROC_NULL);
  EXPECT_EQ(dec.neighbour(NeighbourStep{{0, 1, 1}}), MPI_PROC_NULL);
  EXPECT_EQ(dec.neighbours(), ranks == 1 ? 0 : (rank == 0 || rank == ranks - 1 ? 1 : 2));
  EXPECT_EQ(dec.ends(), SlabEnds::wall);
}

TEST_F(DecompositionTest, PeriodicEndsWrapAroundAndOneRankIsItsOwnNeighbour) {
  const SlabDecomposition dec({3, 2, 11}, MPI_COMM_WORLD, SlabEnds::periodic);
  EXPECT_EQ(dec.neighbour(NeighbourStep::along(2, -1)), (rank - 1 + ranks) % ranks);
  EXPECT_EQ(dec.neighbour(NeighbourStep::along(2, +1)), (rank + 1) % ranks);
  EXPECT_EQ(dec.neighbours(), 2);
  EXPECT_TRUE(dec.has_neighbour(NeighbourStep::along(2, -1)));
}

TEST_F(DecompositionTest, BoxTooThinIsACollectiveErrorOnEveryRank) {
  // One plane along the slab axis is too thin for any rank count: every rank must throw the
  // same CollectiveError, none may go on alone.
  try {
    const SlabDecomposition dec({4, 1, 1}, MPI_COMM_WORLD, SlabEnds::wall);
    ADD_FAILURE() << "no error for a box of one plane";
  } catch (const comm::CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("karman::SlabPartition"), std::string::npos) << e.what();
  }
}

TEST(GpuAwareMode, ParsesItsChoicesAndNamesThemInErrors) {
  EXPECT_EQ(comm::parse_gpu_aware_mode("auto"), comm::GpuAwareMode::automatic);
  EXPECT_EQ(comm::parse_gpu_aware_mode("on"), comm::GpuAwareMode::on);
  EXPECT_EQ(comm::parse_gpu_aware_mode("off"), comm::GpuAwareMode::off);
  for (auto mode : {comm::GpuAwareMode::automatic, comm::GpuAwareMode::on, comm::GpuAwareMode::off})
    EXPECT_EQ(comm::parse_gpu_aware_mode(comm::name(mode)), mode);
  try {
    comm::parse_gpu_aware_mode("yes");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'yes'"), std::string::npos) << what;
    EXPECT_NE(what.find("auto|on|off"), std::string::npos) << what;
  }
}

TEST(GpuAwareMode, HostMemoryIsNeverGpuAwareAndSettingsWinOverTheQuery) {
  for (auto mode : {comm::GpuAwareMode::automatic, comm::GpuAwareMode::on, comm::GpuAwareMode::off})
    EXPECT_FALSE(comm::resolve_gpu_aware(mode, comm::DeviceApi::none));
  EXPECT_TRUE(comm::resolve_gpu_aware(comm::GpuAwareMode::on, comm::DeviceApi::cuda));
  EXPECT_FALSE(comm::resolve_gpu_aware(comm::GpuAwareMode::off, comm::DeviceApi::cuda));
  EXPECT_EQ(comm::resolve_gpu_aware(comm::GpuAwareMode::automatic, comm::DeviceApi::cuda),
            comm::mpi_reports_gpu_aware(comm::DeviceApi::cuda));
}

}  // namespace
