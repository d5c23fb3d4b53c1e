#pragma once
// What the decomposed-solver tests share: a fixture whose verdict is collective, every rank's
// owned moments (slab or Cartesian block) gathered in global order on rank 0, and a bitwise
// comparison of two fields.
#include "lbm_test_support.hpp"

#include <karman/core/extents.hpp>
#include <karman/lbm/flow_solver.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace karman::lbm::test {

/// Rank and size of MPI_COMM_WORLD; a check that fails on one rank fails the test on every
/// rank, so rank 0's report (the only one printed in full) tells the truth. Tests must reach
/// TearDown on every rank: no ASSERT_* before a collective call.
class MpiSolverTest : public ::testing::Test {
 protected:
  MpiSolverTest();
  void TearDown() override;

  int rank = 0;
  int ranks = 1;
};

/// Every rank's owned moments on rank 0, with where each rank said its slab or block lies.
struct GatheredMoments {
  HostMoments fields;                     ///< in global order (x fastest); empty off rank 0
  std::vector<std::int64_t> slab_begin;   ///< first global voxel of each rank's slab or block
  std::vector<std::int64_t> slab_voxels;  ///< owned voxels of each rank
  /// Empty when the ranks' owned boxes cover the global box once; otherwise what is wrong.
  std::string coverage;
};

/// Collective over `comm`: the owned moments of every rank on rank 0, each rank's values placed
/// by its owned box (FlowSolver::owned_box). For slabs this is their concatenation in rank
/// order, which is global order (x fastest) when each slab begins where the previous one ended,
/// as `slabs_in_global_order` checks.
GatheredMoments gather_moments(FlowSolver& solver, MPI_Comm comm);

/// Empty when every slab starts where the previous one ended and they cover `global`;
/// otherwise what is wrong.
std::string slabs_in_global_order(const GatheredMoments& gathered, const Extents& global);

/// Empty when `a` and `b` hold the same bits in every value (so -0.0 differs from 0.0 and NaN
/// equals itself); otherwise how many values differ and the first one, with its voxel (x, y, z).
std::string bitwise_difference(const HostMoments& a, const HostMoments& b, const Extents& global);

/// Largest |u| component, to check that a case has set the fluid moving.
double max_speed(const HostMoments& m);

/// A density ripple that differs on every voxel, so that a halo holding the wrong voxel or plane
/// (or the right one of the wrong neighbour) cannot be hidden by a symmetry of the case.
inline FlowState rippled(int x, int y, int z) {
  FlowState s;
  s.rho = 1.0 + 1e-3 * std::sin(0.7 * x + 1.3 * y + 2.1 * z + 0.3);
  return s;
}

}  // namespace karman::lbm::test
