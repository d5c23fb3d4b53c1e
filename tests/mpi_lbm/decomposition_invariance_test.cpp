// Decomposition invariance (docs/validation.md, "Conservation and invariants"): a case decomposed
// into slabs over every rank of MPI_COMM_WORLD gives, after odd and even step counts, the same
// bits in every owned voxel's rho and u as the single-rank run of the same setup, for every
// layout, AB and AA, with the halo exchange overlapped with interior work (Meneghin & Mahmoud Fig. 4b)
// and not, in double and the FP16 storage precisions. Box sizes are chosen so that no rank
// count from 2 to 4 divides the slab axis evenly (11 planes: slabs of 6+5, 4+4+3, 3+3+3+2, the
// last leaving a slab with no interior).
#include "mpi_lbm_support.hpp"

#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <tuple>

namespace {

using namespace karman;
using namespace karman::lbm;

/// Every case runs once per propagation pattern: AB (two lattices) and AA (one lattice, whose
/// odd steps push into the halo and whose even steps need those values back, Valero-Lara).
class DecompositionInvariance : public test::MpiSolverTest, public ::testing::WithParamInterface<const char*> {};

/// Planes along the slab axis of every box below: 2, 3 and 4 ranks all get uneven slabs.
constexpr int planes = 11;

/// Runs `setup` on the slabs of every rank for `steps` and `steps + 1` steps and compares the
/// gathered fields bit by bit with the single-rank run of the same setup on rank 0. The
/// reference runs on rank 0 after the gather, while the other ranks wait in their next
/// collective call, so it costs the other ranks no cores.
void expect_invariant(SolverSetup setup, int steps, const std::string& what, int rank, int ranks) {
  SolverSetup single = setup;
  single.communicator = comm::Ranks();
  setup.rank = rank;
  setup.ranks = ranks;
  setup.communicator = comm::Ranks(MPI_COMM_WORLD);
  const bool periodic_slab_axis = setup.periodic[setup.global.dimension() == 3 ? 2 : 1];

  auto decomposed = make_solver(setup);
  EXPECT_EQ(decomposed->uses_mpi(), ranks > 1) << what;
  std::unique_ptr<FlowSolver> reference = rank == 0 ? make_solver(single) : nullptr;
  for (int n : {steps, steps + 1}) {
    decomposed->advance(n - int(decomposed->steps()));
    const auto gathered = test::gather_moments(*decomposed, MPI_COMM_WORLD);
    const std::string where = what + " after " + std::to_string(n) + " steps on " + std::to_string(ranks) + " ranks";
    if (ranks > 1) {
      // The MPI path really moved halos: a middle rank (or any rank of a periodic ring) has two
      // neighbours, an end rank between walls one.
      const RankCommStats stats = decomposed->comm_stats();
      const bool end = !periodic_slab_axis && (rank == 0 || rank == ranks - 1);
      EXPECT_EQ(stats.neighbours, end ? 1 : 2) << where << ", rank " << rank;
      EXPECT_GT(stats.messages_sent_per_step, 0.0) << where << ", rank " << rank;
    }
    if (rank != 0) continue;
    reference->advance(n - int(reference->steps()));
    const auto expected = test::host_moments(*reference);
    EXPECT_GT(test::max_speed(expected), 1e-6) << where << ": the case must set the fluid moving";
    EXPECT_EQ(test::slabs_in_global_order(gathered, setup.global), "") << where;
    EXPECT_EQ(test::bitwise_difference(expected, gathered.fields, setup.global), "") << where;
  }
}

/// Every layout, overlap on and off, for one setup and pattern.
void expect_invariant_for_all_variants(const SolverSetup& base, const char* pattern, int steps, const std::string& name,
                                       int rank, int ranks) {
  for (const char* layout : {"aos", "soa", "csoa", "disaggregated"}) {
    for (bool overlap : {true, false}) {
      SolverSetup s = base;
      s.variant.layout = layout;
      s.variant.pattern = pattern;
      s.overlap = overlap;
      if (!test::compiled(s.variant)) continue;
      expect_invariant(s, steps,
                       name + " " + s.variant.lattice.name() + " " + layout + " " + pattern +
                           (overlap ? " overlap on" : " overlap off"),
                       rank, ranks);
    }
  }
}

/// Cavity with n = planes - 2 fluid voxels per side inside its wall ring, at low Re so that a
/// few steps already move the fluid on every plane.
SolverSetup cavity(int dim, const std::string& lattice) {
  cases::CavityParams p;
  p.dim = dim;
  p.n = planes - 2;
  p.reynolds = 10;
  SolverSetup s = cases::cavity_setup(p, Variant{lattice, "double", "soa", "bgk", "ab"});
  s.initial = test::rippled;
  return s;
}

TEST_P(DecompositionInvariance, Cavity3DD3Q19) {
  expect_invariant_for_all_variants(cavity(3, "d3q19"), GetParam(), 4, "cavity 3D", rank, ranks);
}

TEST_P(DecompositionInvariance, Cavity3DD3Q27) {
  expect_invariant_for_all_variants(cavity(3, "d3q27"), GetParam(), 4, "cavity 3D", rank, ranks);
}

// 2D: the slab axis is y, so the lid lies in the last rank's slab; enough steps for its
// motion to reach every other slab.
TEST_P(DecompositionInvariance, Cavity2DD2Q9) {
  expect_invariant_for_all_variants(cavity(2, "d2q9"), GetParam(), 12, "cavity 2D", rank, ranks);
}

// FP16 storage (Lehmann et al. 2022): the halos carry the 16-bit words of f - w as they are,
// so the decomposed run rounds exactly as the single-rank one.
TEST_P(DecompositionInvariance, CavityFloat16Storage) {
  for (const char* precision : {"fp16s", "fp16c"}) {
    for (auto [dim, lattice, steps] : {std::tuple{2, "d2q9", 12}, std::tuple{3, "d3q19", 4}}) {
      SolverSetup s = cavity(dim, lattice);
      s.variant.precision = precision;
      expect_invariant_for_all_variants(s, GetParam(), steps, std::string("cavity ") + precision, rank, ranks);
    }
  }
}

// Periodic along the slab axis: the first and last ranks are MPI neighbours (with 2 ranks
// each is the other's neighbour on both sides).
TEST_P(DecompositionInvariance, TaylorGreen2DPeriodicSlabAxis) {
  cases::TaylorGreenParams p;
  p.n = planes;
  p.reynolds = 10;
  expect_invariant_for_all_variants(cases::taylor_green_setup(p, Variant{"d2q9", "double", "soa", "bgk", "ab"}),
                                    GetParam(), 6, "taylor-green", rank, ranks);
}

// 3D, periodic along the slab axis z, with Guo body forcing and walls in y.
TEST_P(DecompositionInvariance, Channel3DPeriodicSlabAxisWithBodyForce) {
  cases::ChannelParams p;
  p.dim = 3;
  p.height = 4;
  p.length = 5;
  p.depth = planes;
  SolverSetup s = cases::channel_setup(p, Variant{"d3q19", "double", "soa", "bgk", "ab"});
  s.initial = test::rippled;
  expect_invariant_for_all_variants(s, GetParam(), 4, "channel 3D body force", rank, ranks);
}

// 2D, regularized pressure inlet and outlet (Latt et al. 2008) on every slab.
TEST_P(DecompositionInvariance, Channel2DPressureDrop) {
  cases::ChannelParams p;
  p.height = planes - 2;
  p.length = 8;
  p.drive = cases::ChannelDrive::pressure_drop;
  SolverSetup s = cases::channel_setup(p, Variant{"d2q9", "double", "soa", "bgk", "ab"});
  expect_invariant_for_all_variants(s, GetParam(), 6, "channel 2D pressure drop", rank, ranks);
}

INSTANTIATE_TEST_SUITE_P(Pattern, DecompositionInvariance, ::testing::Values("ab", "aa"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
