// Decomposition invariance on Cartesian blocks (docs/validation.md invariants, issue 18): the dense
// solver on the blocks of a process grid (SolverSetup::process_grid, --ranks-per-axis) gives,
// after odd and even step counts, the same bits in every owned voxel's rho and u as the
// single-rank run on a slab. Grids: slabs through the block solver (1x1xN, 1xN in 2D), and
// blocks cut along two or three axes (2x2x1, 2x2x2, 2x2 and 4x2 in 2D), so faces, edges and
// corners each carry their own message (Meneghin & Mahmoud §III, generalised to blocks). Boxes
// of 17 (and 13) voxels split unevenly. Cases: a 3D lid-driven cavity (walls on every side), a
// 3D channel with a body force (periodic along x and z: the in-kernel wrap where an axis is
// not cut, periodic neighbour messages where it is), a 2D cavity and a fully periodic 2D
// Taylor-Green vortex; SoA and Disaggregated, AB and AA, overlap on and off.
#include "mpi_lbm_support.hpp"

#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

class CartesianInvariance : public test::MpiSolverTest, public ::testing::WithParamInterface<const char*> {};

/// Voxels along the cut axes of the boxes below: 2, 4 and 8 ranks along one axis all split
/// them unevenly (17 = 9 + 8 = 5 + 4 + 4 + 4 = 3 + 2 * 7).
constexpr int voxels = 17;

std::string grid_text(const std::array<int, 3>& g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

/// The process grids run at `ranks` ranks: slabs on the block solver, then blocks.
std::vector<std::array<int, 3>> grids(int ranks, int dim) {
  std::vector<std::array<int, 3>> out;
  out.push_back(dim == 3 ? std::array<int, 3>{1, 1, ranks} : std::array<int, 3>{1, ranks, 1});
  if (ranks == 2) out.push_back({2, 1, 1});
  if (ranks == 4) out.push_back({2, 2, 1});
  if (ranks == 8) out.push_back(dim == 3 ? std::array<int, 3>{2, 2, 2} : std::array<int, 3>{4, 2, 1});
  return out;
}

/// Runs `setup` on the blocks of `grid` for `steps` and `steps + 1` steps and compares the
/// gathered fields bit by bit with the single-rank slab run of the same setup on rank 0.
void expect_invariant(SolverSetup setup, const std::array<int, 3>& grid, int steps, const std::string& what, int rank,
                      int ranks) {
  SolverSetup single = setup;
  single.communicator = comm::Ranks();
  setup.rank = rank;
  setup.ranks = ranks;
  setup.communicator = comm::Ranks(MPI_COMM_WORLD);
  setup.process_grid = grid;

  auto decomposed = make_solver(setup);
  const OwnedBox box = decomposed->owned_box();
  EXPECT_EQ(box.grid, grid) << what;
  std::unique_ptr<FlowSolver> reference = rank == 0 ? make_solver(single) : nullptr;
  for (int n : {steps, steps + 1}) {
    decomposed->advance(n - int(decomposed->steps()));
    const auto gathered = test::gather_moments(*decomposed, MPI_COMM_WORLD);
    const std::string where = what + " on " + grid_text(grid) + " after " + std::to_string(n) + " steps";
    const RankCommStats stats = decomposed->comm_stats();
    if (ranks > 1) {
      EXPECT_GT(stats.messages_sent_per_step, 0.0) << where << ", rank " << rank;
      // Neighbours lie along the cut axes and along a periodic slab axis (which keeps its halo
      // uncut, a message to the block itself). With two such axes a block exchanges with its
      // edge neighbours, every lattice having populations that cross an edge; with three, with
      // its corners, which only D3Q27's cross.
      int axes = 0;
      for (int a = 0; a < 3; ++a) axes += int(grid[a] > 1 || (a == setup.global.slab_axis() && setup.periodic[a]));
      EXPECT_EQ(stats.messages_sent_per_step_by_kind[1] > 0, axes >= 2) << where << ", rank " << rank;
      EXPECT_EQ(stats.messages_sent_per_step_by_kind[2] > 0, axes == 3 && setup.variant.lattice == "d3q27")
          << where << ", rank " << rank;
    }
    if (rank != 0) continue;
    reference->advance(n - int(reference->steps()));
    const auto expected = test::host_moments(*reference);
    EXPECT_GT(test::max_speed(expected), 1e-6) << where << ": the case must set the fluid moving";
    EXPECT_EQ(gathered.coverage, "") << where;
    EXPECT_EQ(test::bitwise_difference(expected, gathered.fields, setup.global), "") << where;
  }
}

/// Every grid at this rank count, SoA and Disaggregated where compiled for blocks, overlap on
/// and off, for one setup and pattern. Returns how many variants ran.
int expect_invariant_on_grids(const SolverSetup& base, const char* pattern, int steps, const std::string& name,
                              int rank, int ranks) {
  int ran = 0;
  for (const std::array<int, 3>& grid : grids(ranks, base.global.dimension())) {
    for (const char* layout : {"soa", "disaggregated"}) {
      for (bool overlap : {true, false}) {
        SolverSetup s = base;
        s.variant.layout = layout;
        s.variant.pattern = pattern;
        s.overlap = overlap;
        const Variant& v = s.variant;
        if (!is_block_compiled(v.lattice, v.precision, v.layout) || !test::compiled(v)) continue;
        expect_invariant(
            s, grid, steps,
            name + " " + v.lattice.name() + " " + layout + " " + pattern + (overlap ? " overlap on" : " overlap off"),
            rank, ranks);
        ++ran;
      }
    }
  }
  return ran;
}

/// Cavity with walls on every side, at low Re so that a few steps already move the fluid.
SolverSetup cavity(int dim, const std::string& lattice) {
  cases::CavityParams p;
  p.dim = dim;
  p.n = voxels - 2;
  p.reynolds = 10;
  SolverSetup s = cases::cavity_setup(p, Variant{lattice, "double", "soa", "bgk", "ab"});
  s.initial = test::rippled;
  return s;
}

TEST_P(CartesianInvariance, Cavity3D) {
  int ran = 0;
  for (const char* lattice : {"d3q19", "d3q27"})
    ran += expect_invariant_on_grids(cavity(3, lattice), GetParam(), 4, "cavity 3D", rank, ranks);
  EXPECT_GT(ran, 0) << "no d3q19 or d3q27 double soa/disaggregated variant is compiled for blocks";
}

// 2D: the lid moves the fluid on every block within a dozen steps.
TEST_P(CartesianInvariance, Cavity2DD2Q9) {
  EXPECT_GT(expect_invariant_on_grids(cavity(2, "d2q9"), GetParam(), 12, "cavity 2D", rank, ranks), 0);
}

// Periodic along x and z with walls in y and a Guo body force, TRT: along an uncut periodic
// axis the kernels wrap inside the block, along a cut one the ends are MPI neighbours.
TEST_P(CartesianInvariance, Channel3DBodyForce) {
  cases::ChannelParams p;
  p.dim = 3;
  p.height = 11;
  p.length = 13;
  p.depth = voxels;
  SolverSetup s = cases::channel_setup(p, Variant{"d3q19", "double", "soa", "trt", "ab"});
  s.initial = test::rippled;
  EXPECT_GT(expect_invariant_on_grids(s, GetParam(), 4, "channel 3D body force", rank, ranks), 0);
}

// Periodic along both axes, no walls: every block's halo comes from a neighbour or from itself.
TEST_P(CartesianInvariance, TaylorGreen2DPeriodic) {
  cases::TaylorGreenParams p;
  p.n = voxels;
  p.reynolds = 10;
  SolverSetup s = cases::taylor_green_setup(p, Variant{"d2q9", "double", "soa", "bgk", "ab"});
  EXPECT_GT(expect_invariant_on_grids(s, GetParam(), 6, "taylor-green", rank, ranks), 0);
}

class CartesianRefusal : public test::MpiSolverTest {};

// What blocks do not run is refused by name, on every rank.
TEST_F(CartesianRefusal, CollisionsAndGrids) {
  SolverSetup s = cavity(3, "d3q19");
  s.rank = rank;
  s.ranks = ranks;
  s.communicator = comm::Ranks(MPI_COMM_WORLD);
  s.process_grid = grids(ranks, 3).front();
  s.variant.collision = "mrt";
  try {
    make_solver(s);
    ADD_FAILURE() << "mrt on blocks was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not compiled for Cartesian blocks"), std::string::npos) << e.what();
  }
  s.variant.collision = "bgk";
  s.process_grid = {ranks, 2, 1};
  try {
    make_solver(s);
    ADD_FAILURE() << "a grid of " << 2 * ranks << " ranks was accepted on " << ranks;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("process grid"), std::string::npos) << e.what();
  }
  s.process_grid = grids(ranks, 3).front();
  s.force_field = [](int, int, int) { return std::array<double, 3>{1e-6, 0, 0}; };
  try {
    make_solver(s);
    ADD_FAILURE() << "a per-voxel force field on blocks was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("force field (force_field) runs on slabs only"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Pattern, CartesianInvariance, ::testing::Values("ab", "aa"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
