// Decomposition invariance of the refined grid's step (issue 53, docs/multiresolution.md): the
// ranks of MPI_COMM_WORLD cut the coarsest level's block planes where its work is shared out
// evenly (refined_plane_work), every finer level takes the same cuts, and each rank steps its part
// of every level, exchanging each level's halo blocks after each of its kernels. Every population
// of every owned leaf voxel of every level then equals, bit for bit, the step of the whole grid
// on one rank, with the refined patches across the cuts. The boxes hold 8 and 6 coarse block
// planes, so 2 and 3 ranks get uneven parts.
#include "mpi_lbm_support.hpp"
#include "refined_reference.hpp"
#include "refined_step_support.hpp"

#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/comm/slab_decomposition.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/sparse/block_partition.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/refined_step.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using namespace karman;
using namespace karman::test;  // refined_reference.hpp, refined_step_support.hpp

class RefinedDecompositionInvariance : public lbm::test::MpiSolverTest {};

/// Steps `levels` `steps` coarse steps on this rank's part in `schedule` and, on every rank alike, on
/// the whole grid in the disaggregated schedule (both with `explosion`), and compares every owned
/// leaf voxel; the ranks together compare every leaf voxel once.
template <class L, int B>
void expect_invariant(const RefinedLevels<L::D>& levels, int steps, int rank, int ranks, const std::string& what,
                      lbm::RefinedSchedule schedule = lbm::RefinedSchedule::disaggregated,
                      lbm::Explosion explosion = lbm::Explosion::constant) {
  using Grid = RefinedGrid<L::D, B>;
  using Step = lbm::RefinedStep<L, double, lbm::BGK, B>;
  using shape = typename Grid::shape_type;
  lbm::RelaxationParams coarse;
  coarse.omega = 1.4;
  const Grid whole("refined_whole", levels);
  lbm::RefinedStepOptions whole_options;
  whole_options.explosion = explosion;
  Step reference(levels, whole, coarse, nullptr, whole_options);
  set_populations(reference, whole, initial<L>);

  const BlockPartition partition(refined_plane_work(levels), ranks);
  const Grid part("refined_part", levels, partition, rank);
  std::unique_ptr<typename Step::exchanger_type> halos;
  if (ranks > 1) {
    // The exchanger needs the neighbours' ranks only: any slab decomposition of the ranks gives them.
    const comm::SlabDecomposition neighbours(
        levels.block_lattice(levels.levels() - 1), MPI_COMM_WORLD,
        levels.periodic(L::D - 1) ? comm::SlabEnds::periodic : comm::SlabEnds::wall);
    halos = std::make_unique<comm::MpiHaloExchanger<typename Step::field_type>>(neighbours);
  }
  lbm::RefinedStepOptions options;
  options.schedule = schedule;
  options.explosion = explosion;
  Step step(levels, part, coarse, std::move(halos), options);
  set_populations(step, part, initial<L>);
  step.exchange_halos();
  for (int n = 0; n < steps; ++n) {
    reference.step();
    step.step();
  }

  double compared = 0, leaves = 0;
  for (int l = 0; l < whole.levels(); ++l) {
    if (whole.empty(l)) continue;
    for (index_t v = 0; v < whole.level(l).voxel_count(); ++v) leaves += leaf(whole, l, v);
    const auto expected = host_copy(reference.populations(l));
    const auto got = host_copy(step.populations(l));
    const BlockRange owned = part.level(l).owned_blocks();
    for (block_index_t b = owned.begin; b < owned.end; ++b) {
      const std::array<int, 3> origin = part.level(l).origin(b);
      const block_index_t w = whole.block_at(l, {origin[0] / B, origin[1] / B, origin[2] / B});
      ASSERT_NE(w, absent_block) << what << ": level " << l << " block of rank " << rank << " not in the whole grid";
      for (int local = 0; local < shape::voxels; ++local) {
        const index_t v = index_t(b) * shape::voxels + local, u = index_t(w) * shape::voxels + local;
        if (!leaf(part, l, v)) continue;
        const auto at = coordinates(part, l, v);
        for (int i = 0; i < L::Q; ++i) {
          ASSERT_EQ(got(v, i), expected(u, i))
              << what << ", rank " << rank << " of " << ranks << ": level " << l << " voxel (" << at[0] << ", " << at[1]
              << ", " << at[2] << ") population " << i;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(comm::Ranks(MPI_COMM_WORLD).sum(compared), leaves) << what;
}

TEST_F(RefinedDecompositionInvariance, RanksEqualOneRankBitForBit) {
  // Three levels of D2Q9 over 8 coarse block planes; the patch spans coarse planes 2 to 4.
  expect_invariant<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0), 6, rank, ranks,
                                 "2D, three levels");
  // Two levels of D3Q19 over 6 coarse block planes, the patch across the middle.
  expect_invariant<lbm::D3Q19, 2>(refined_patch<3>({8, 8, 12}, 2, 2, {7.0, 9.0, 12.0}, 4.0), 4, rank, ranks,
                                  "3D, two levels");
  // The baseline schedule, and walls: a closed box cut across its walls.
  const std::array<bool, 3> closed{false, false, false};
  expect_invariant<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 5.0, closed), 6, rank, ranks,
                                 "2D closed box, baseline schedule", lbm::RefinedSchedule::baseline);
  // The linear explosion, whose gradient stencils read every population of a halo voxel (the
  // exchange then moves them all): the three-level patch across the cuts, a patch across a closed
  // side, and the 3D ball.
  expect_invariant<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0), 6, rank, ranks,
                                 "2D, three levels, linear explosion", lbm::RefinedSchedule::disaggregated,
                                 lbm::Explosion::linear);
  expect_invariant<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {1.0, 30.0, 0.0}, 9.0, closed), 6, rank, ranks,
                                 "2D closed box, a patch across a side, linear explosion",
                                 lbm::RefinedSchedule::baseline, lbm::Explosion::linear);
  expect_invariant<lbm::D3Q19, 2>(refined_patch<3>({8, 8, 12}, 2, 2, {7.0, 9.0, 12.0}, 4.0), 4, rank, ranks,
                                  "3D, two levels, linear explosion", lbm::RefinedSchedule::disaggregated,
                                  lbm::Explosion::linear);
}

}  // namespace
