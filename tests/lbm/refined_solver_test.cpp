// The refined grid behind the solver's runtime face (refined_solver.hpp): a case's setup on the
// finest level runs on the levels, its moments are the leaves' seen on the finest box, and its
// checkpoint state (save/load_populations) continues a run bit for bit.
#include "refined_step_support.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/refined_solver.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using namespace karman;
using L = lbm::D2Q9;
constexpr int B = 4;

/// The dense cavity's setup (walls one voxel thick, the lid on top) of `n` fluid voxels a side.
lbm::SolverSetup cavity(int n) {
  lbm::cases::CavityParams p;
  p.n = n;
  p.reynolds = 100;
  return lbm::cases::cavity_setup(p, lbm::Variant{});
}

/// Two levels of the box `setup` holds, the finest in a shell `depth` voxels deep along its sides.
RefinedLevels<2> shell(const lbm::SolverSetup& setup, int levels, int depth) {
  const int nx = setup.global.nx, ny = setup.global.ny, top = levels - 1;
  return RefinedLevels<2>({nx >> top, ny >> top, 1}, B, {false, false, false}, levels,
                          [=](int level, const LevelBlockCoordinates& at) {
                            const int span = B << level, x = at[0] * span, y = at[1] * span;
                            return x < depth || y < depth || x + span > nx - depth || y + span > ny - depth;
                          });
}

using Solver = lbm::RefinedSolver<L, double, lbm::BGK, B>;

std::vector<std::byte> state(const lbm::FlowSolver& solver) {
  std::vector<std::byte> bytes(std::size_t(solver.owned_box().size()) * L::Q * sizeof(double));
  solver.save_populations(bytes.data());
  return bytes;
}

TEST(RefinedSolver, RestartContinuesBitForBit) {
  const lbm::SolverSetup setup = cavity(62);  // a 64-voxel box
  Solver straight(setup, shell(setup, 2, 8), lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
  straight.advance(40);
  const std::vector<std::byte> at_40 = state(straight);
  straight.advance(40);

  Solver restarted(setup, shell(setup, 2, 8), lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
  restarted.load_populations(at_40.data(), 40);
  EXPECT_EQ(restarted.steps(), 40);
  restarted.advance(40);
  EXPECT_EQ(restarted.steps(), 80);
  const std::vector<std::byte> a = state(straight), b = state(restarted);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
  // The run moved: the state at step 80 is not the one at step 40.
  EXPECT_NE(std::memcmp(a.data(), at_40.data(), a.size()), 0);
}

TEST(RefinedSolver, MomentsAreTheLeavesOnTheFinestBox) {
  const lbm::SolverSetup setup = cavity(62);
  Solver solver(setup, shell(setup, 2, 8), lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
  solver.advance(60);
  const lbm::MomentFields m = solver.moments();
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  // The mass of the finest box is the leaves' mass in finest voxels, walls (zero) apart.
  double wall_mass = 0;
  const auto& grid = solver.grid();
  for (index_t v = 0; v < grid.level(0).voxel_count(); ++v) {
    if (!test::leaf(grid, 0, v)) continue;
    const std::array<int, 3> x = test::coordinates(grid, 0, v);
    if (setup.geometry(x[0], x[1], x[2]).kind != lbm::CellKind::solid) continue;
    const auto f = test::host_copy(solver.step().populations(0));
    for (int i = 0; i < L::Q; ++i) wall_mass += f(v, i);
  }
  EXPECT_NEAR(lbm::total_density(m) + wall_mass, test::mass(solver.step(), grid), 1e-9);
  // A coarse leaf's four finest voxels show its one value, and the flow moves under the lid.
  const Extents& box = setup.global;
  const index_t centre = box.index(32, 32, 0);
  EXPECT_EQ(rho(centre), rho(box.index(33, 33, 0)));
  EXPECT_EQ(u(centre, 0), u(box.index(33, 32, 0), 0));
  EXPECT_NE(u(box.index(32, 60, 0), 0), 0.0);
  EXPECT_EQ(rho(box.index(0, 10, 0)), 0.0);  // a wall
}

TEST(RefinedSolver, BothSchedulesGiveTheSameBits) {
  const lbm::SolverSetup setup = cavity(62);
  Solver fused(setup, shell(setup, 2, 8), lbm::RefinedSchedule::disaggregated, lbm::Explosion::linear);
  Solver split(setup, shell(setup, 2, 8), lbm::RefinedSchedule::baseline, lbm::Explosion::linear);
  fused.advance(30);
  split.advance(30);
  const std::vector<std::byte> a = state(fused), b = state(split);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
  EXPECT_NE(fused.description(), split.description());
}

TEST(RefinedSolver, RefusesWallsInACoarseLeaf) {
  // The shell is 4 voxels deep: the coarse level's leaves reach the walls.
  const lbm::SolverSetup setup = cavity(62);
  RefinedLevels<2> levels({32, 32, 1}, B, {false, false, false}, 2,
                          [](int, const LevelBlockCoordinates& at) { return at[0] > 2; });
  try {
    Solver solver(setup, std::move(levels), lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
    FAIL() << "a coarse leaf over a wall and fluid was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("walls must lie on the finest level"), std::string::npos) << e.what();
  }
}

TEST(RefinedSolver, RefusesAnotherBox) {
  const lbm::SolverSetup setup = cavity(62);
  try {
    Solver solver(setup, shell(cavity(94), 2, 8), lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
    FAIL() << "levels of another box were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("96x96x1 voxels, the setup's box 64x64x1"), std::string::npos) << e.what();
  }
}

}  // namespace
