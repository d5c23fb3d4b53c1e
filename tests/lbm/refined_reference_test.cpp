// The coupling of refined levels (refined_reference.hpp, docs/multiresolution.md) moves every
// population exactly once: mass and momentum of a periodic box with refined patches stay as
// they were to rounding, corners and diagonal paths included; a uniform flow stays uniform on
// every level; a level refined everywhere steps as a uniform fine grid, bit for bit.
#include "refined_reference.hpp"

#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/equilibrium.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace {

using namespace karman;
using karman::test::refined_patch;
using karman::test::RefinedReference;

/// Mass and momentum of `grid` in finest-voxel units.
template <class L>
std::array<double, 4> invariants(const RefinedReference<L>& grid) {
  std::array<double, 4> out{grid.total([](int) { return 1.0; }), 0, 0, 0};
  for (int a = 0; a < L::D; ++a) out[std::size_t(1 + a)] = grid.total([a](int i) { return double(L::c(i, a)); });
  return out;
}

/// Random populations near the equilibrium of a flow at rest, different on every voxel and level.
template <class L>
void randomize(RefinedReference<L>& grid, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  grid.set([&](int, const std::array<int, 3>&, int i) { return L::w(i) * (1.0 + noise(rng)); });
}

template <class L>
void expect_conserved(const RefinedLevels<L::D>& levels, int steps, const std::string& what) {
  lbm::RelaxationParams coarse;
  coarse.omega = 1.6;
  RefinedReference<L> grid(levels, coarse);
  randomize(grid, 7);
  const auto before = invariants(grid);
  for (int n = 0; n < steps; ++n) grid.step();
  const auto after = invariants(grid);
  EXPECT_NEAR(after[0], before[0], 1e-12 * before[0]) << what << ": mass";
  for (int a = 1; a <= L::D; ++a)
    EXPECT_NEAR(after[std::size_t(a)], before[std::size_t(a)], 1e-11 * before[0]) << what << ": momentum " << a;
}

TEST(RefinedReference, MassAndMomentumConservedAcrossLevelJumps) {
  // 2D: three levels, a round patch refined twice inside a box whose finest level is 64 x 64.
  const auto two = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0);
  ASSERT_GT(two.leaves(0).size(), 0u);
  ASSERT_GT(two.leaves(1).size(), 0u);
  expect_conserved<lbm::D2Q9>(two, 40, "2D, three levels");
  // 3D: two levels.
  const auto three = refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0);
  ASSERT_GT(three.leaves(0).size(), 0u);
  expect_conserved<lbm::D3Q19>(three, 10, "3D, two levels");
}

TEST(RefinedReference, UniformFlowStaysUniform) {
  const auto levels = refined_patch<2>({16, 12, 1}, 2, 3, {20.0, 22.0, 0.0}, 8.0);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.2;
  RefinedReference<lbm::D2Q9> grid(levels, coarse);
  const double u0[3] = {0.05, -0.02, 0};
  grid.set([&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<lbm::D2Q9>(i, 1.0, u0); });
  for (int n = 0; n < 50; ++n) grid.step();
  double worst = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    for (index_t v = 0; v < grid.box(l).size(); ++v) {
      if (!grid.leaf(l, v)) continue;
      double rho = 0, u[2] = {0, 0};
      for (int i = 0; i < lbm::D2Q9::Q; ++i) {
        const double f = grid.population(l, v, i);
        rho += f;
        for (int a = 0; a < 2; ++a) u[a] += lbm::D2Q9::c(i, a) * f;
      }
      for (int a = 0; a < 2; ++a) worst = std::max(worst, std::abs(u[a] / rho - u0[a]));
      worst = std::max(worst, std::abs(rho - 1.0));
    }
  }
  EXPECT_LT(worst, 1e-13);
}

TEST(RefinedReference, LevelRefinedEverywhereStepsAsAUniformGrid) {
  // Every block of the coarse level refined: level 0 covers the box, and one coarse step is two
  // steps of a single-level grid of the fine box.
  const RefinedLevels<2> everywhere({8, 6, 1}, 2, {true, true, true}, 2,
                                    [](int, const LevelBlockCoordinates&) { return true; });
  const RefinedLevels<2> fine({16, 12, 1}, 2, {true, true, true}, 1,
                              [](int, const LevelBlockCoordinates&) { return false; });
  ASSERT_EQ(everywhere.leaves(1).size(), 0u);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.3;
  RefinedReference<lbm::D2Q9> refined(everywhere, coarse);
  RefinedReference<lbm::D2Q9> uniform(fine, lbm::refined_relaxation(coarse, 1));
  const auto init = [](int, const std::array<int, 3>& at, int i) {
    return lbm::D2Q9::w(i) * (1.0 + 0.01 * std::sin(0.7 * at[0] + 1.3 * at[1] + i));
  };
  refined.set(init);
  uniform.set(init);
  for (int n = 0; n < 5; ++n) {
    refined.step();
    uniform.step();
    uniform.step();
  }
  for (index_t v = 0; v < uniform.box(0).size(); ++v) {
    for (int i = 0; i < lbm::D2Q9::Q; ++i) ASSERT_EQ(refined.population(0, v, i), uniform.population(0, v, i));
  }
}

}  // namespace
