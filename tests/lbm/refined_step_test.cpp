// The baseline step of a refined grid (refined_step.hpp) on the block-sparse levels equals the
// reference step over dense arrays (refined_reference.hpp) bit for bit, on every leaf voxel of
// every level, and so conserves mass as the reference does.
#include "refined_reference.hpp"
#include "refined_step_support.hpp"

#include <karman/core/refined/refined_grid.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/d3q27.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/refined_step.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <type_traits>

namespace {

using namespace karman;
using namespace karman::test;  // refined_reference.hpp, refined_step_support.hpp

template <class L, int B>
void expect_reference(const RefinedLevels<L::D>& levels, int steps, const std::string& what) {
  using Grid = RefinedGrid<L::D, B>;
  using Step = lbm::RefinedStep<L, double, lbm::BGK, B>;
  const Grid grid("refined_step", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.4;
  Step step(levels, grid, coarse);
  RefinedReference<L> reference(levels, coarse);
  reference.set(initial<L>);
  set_populations(step, grid, initial<L>);
  for (int n = 0; n < steps; ++n) {
    step.step();
    reference.step();
  }
  std::size_t compared = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      const auto at = coordinates(grid, l, v);
      const index_t r = reference.box(l).index(at[0], at[1], at[2]);
      ASSERT_TRUE(reference.leaf(l, r)) << what;
      for (int i = 0; i < L::Q; ++i) {
        ASSERT_EQ(host(v, i), reference.population(l, r, i))
            << what << ": level " << l << " voxel (" << at[0] << ", " << at[1] << ", " << at[2] << ") population " << i;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0u) << what;
}

TEST(RefinedStep, EqualsTheReferenceStepBitForBit) {
  expect_reference<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0), 12, "2D, three levels");
  expect_reference<lbm::D2Q9, 4>(refined_patch<2>({16, 16, 1}, 4, 3, {40.0, 20.0, 0.0}, 6.0), 6, "2D, blocks of 4");
  expect_reference<lbm::D3Q19, 2>(refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0), 4, "3D, two levels");
}

/// Mass after `steps` coarse steps relative to the start, with populations of a flow at rest
/// perturbed differently on every voxel.
template <class L, class T, class Collision, int B>
double mass_change(const RefinedLevels<L::D>& levels, int steps) {
  const RefinedGrid<L::D, B> grid("refined_mass", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.5;
  coarse.omega_bulk = 1.2;
  coarse.omega_high = 1.1;
  lbm::RefinedStep<L, T, Collision, B> step(levels, grid, coarse);
  set_populations(step, grid, initial<L>);
  const double before = mass(step, grid);
  for (int n = 0; n < steps; ++n) step.step();
  return (mass(step, grid) - before) / before;
}

/// Every collision conserves mass, and so does the coupling: in double to rounding, in float
/// without drift beyond its rounding.
TEST(RefinedStep, ConservesMassWithEveryCollision) {
  const auto two = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0);
  const auto three = refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0);
  EXPECT_LT(std::abs(mass_change<lbm::D2Q9, double, lbm::TRT, 2>(two, 10)), 1e-13);
  EXPECT_LT(std::abs(mass_change<lbm::D2Q9, double, lbm::CM, 2>(two, 10)), 1e-13);
  EXPECT_LT(std::abs(mass_change<lbm::D3Q19, double, lbm::MRT, 2>(three, 4)), 1e-13);
  EXPECT_LT(std::abs(mass_change<lbm::D3Q27, double, lbm::CM, 2>(three, 4)), 1e-13);
  EXPECT_LT(std::abs(mass_change<lbm::D2Q9, float, lbm::BGK, 2>(two, 10)), 1e-5);
}

/// A uniform body force on a fluid at rest: every coarse step adds the coarsest level's force to
/// the momentum of each finest-voxel volume (the finer levels take half the force twice as often,
/// level_relaxation.hpp), so the total momentum grows by exactly that. A voxel's own momentum
/// differs from it near the interfaces, where populations of levels with different relaxation
/// times meet (no non-equilibrium rescaling): by less than one coarse step's impulse, and not more
/// after 64 steps than after 8.
TEST(RefinedStep, UniformForceAcceleratesEveryLevelAlike) {
  const auto levels = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0);
  using Grid = RefinedGrid<2, 2>;
  const Grid grid("refined_force", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.5;
  coarse.force[0] = 2e-5;
  coarse.force[1] = -1e-5;
  lbm::RefinedStep<lbm::D2Q9, double, lbm::BGK, 2> step(levels, grid, coarse);
  const double rest[3] = {0, 0, 0};
  set_populations(step, grid,
                  [&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<lbm::D2Q9>(i, 1.0, rest); });
  int steps = 0;
  for (const int until : {8, 64}) {
    for (; steps < until; ++steps) step.step();
    double momentum[2] = {0, 0}, volume = 0, worst = 0;
    for (int l = 0; l < grid.levels(); ++l) {
      if (grid.empty(l)) continue;
      const auto host = host_copy(step.populations(l));
      const double vol = double(1 << (2 * l));
      for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
        if (!leaf(grid, l, v)) continue;
        volume += vol;
        for (int a = 0; a < 2; ++a) {
          double m = 0;
          for (int i = 0; i < lbm::D2Q9::Q; ++i) m += lbm::D2Q9::c(i, a) * host(v, i);
          momentum[a] += vol * m;
          worst = std::max(worst, std::abs(m - steps * coarse.force[a]));
        }
      }
    }
    for (int a = 0; a < 2; ++a) {
      EXPECT_NEAR(momentum[a], steps * coarse.force[a] * volume, 1e-12 * steps * coarse.force[0] * volume)
          << steps << " steps, axis " << a;
    }
    EXPECT_LT(worst, coarse.force[0]) << steps << " steps";
  }
}

/// Largest |u - u0| over the leaf voxels of every level after 1000 coarse steps of a flow that
/// starts uniform at u0 (the equilibrium on every level) through a refined patch of a periodic box.
template <class L>
double uniform_flow_deviation(const RefinedLevels<L::D>& levels) {
  const RefinedGrid<L::D, 2> grid("refined_uniform_flow", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.7;
  lbm::RefinedStep<L, double, lbm::BGK, 2> step(levels, grid, coarse);
  const double u0[3] = {0.05, -0.02, L::D == 3 ? 0.03 : 0.0};
  set_populations(step, grid, [&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<L>(i, 1.0, u0); });
  for (int n = 0; n < 1000; ++n) step.step();
  double worst = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      double rho = 0, j[3] = {0, 0, 0};
      for (int i = 0; i < L::Q; ++i) {
        rho += host(v, i);
        for (int a = 0; a < L::D; ++a) j[a] += L::c(i, a) * host(v, i);
      }
      for (int a = 0; a < L::D; ++a) worst = std::max(worst, std::abs(j[a] / rho - u0[a]));
    }
  }
  return worst;
}

/// Issue 53's check of the coupling on a flow it must leave alone: a uniform flow through a refined
/// patch stays uniform (the tolerance is the issue's; measured 3.7e-16 in 2D and 7.1e-16 in 3D).
TEST(RefinedStep, UniformFlowStaysUniform) {
  EXPECT_LT(uniform_flow_deviation<lbm::D2Q9>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0)), 1e-6);
  EXPECT_LT(uniform_flow_deviation<lbm::D3Q19>(refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0)), 1e-6);
}

/// The baseline schedule (stream and collision as separate passes) and the disaggregated one (fused)
/// compute the same bits on every leaf voxel of every level.
template <class L, class Collision>
void expect_schedules_equal(const RefinedLevels<L::D>& levels, int steps, bool forced, const std::string& what) {
  const RefinedGrid<L::D, 2> grid("refined_schedules", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.3;
  coarse.omega_bulk = 1.1;
  if (forced) {
    coarse.force[0] = 1e-5;
    coarse.force[1] = -2e-5;
  }
  lbm::RefinedStep<L, double, Collision, 2> fused(levels, grid, coarse);
  lbm::RefinedStepOptions baseline;
  baseline.schedule = lbm::RefinedSchedule::baseline;
  lbm::RefinedStep<L, double, Collision, 2> passes(levels, grid, coarse, nullptr, baseline);
  set_populations(fused, grid, initial<L>);
  set_populations(passes, grid, initial<L>);
  for (int n = 0; n < steps; ++n) {
    fused.step();
    passes.step();
  }
  std::size_t compared = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const auto a = host_copy(fused.populations(l)), b = host_copy(passes.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      for (int i = 0; i < L::Q; ++i) ASSERT_EQ(a(v, i), b(v, i)) << what << ": level " << l << " voxel " << v;
      ++compared;
    }
  }
  EXPECT_GT(compared, 0u) << what;
}

TEST(RefinedStep, BaselineScheduleEqualsDisaggregatedBitForBit) {
  const std::array<bool, 3> closed{false, false, false};
  expect_schedules_equal<lbm::D2Q9, lbm::BGK>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0), 8, true,
                                              "2D periodic, forced");
  expect_schedules_equal<lbm::D2Q9, lbm::TRT>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 5.0, closed), 8,
                                              false, "2D closed");
  expect_schedules_equal<lbm::D3Q19, lbm::MRT>(refined_patch<3>({16, 16, 16}, 2, 2, {16.0, 15.0, 17.0}, 4.0, closed), 4,
                                               true, "3D closed, forced");
  expect_schedules_equal<lbm::D3Q27, lbm::CM>(refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0), 4, false,
                                              "3D D3Q27 periodic");
}

TEST(RefinedStep, LevelRefinedEverywhere) {
  // No coarse leaf: the finest level steps twice a coarse step, level 1 stores nothing.
  const RefinedLevels<2> everywhere({8, 6, 1}, 2, {true, true, true}, 2,
                                    [](int, const LevelBlockCoordinates&) { return true; });
  expect_reference<lbm::D2Q9, 2>(everywhere, 3, "refined everywhere");
}

/// The kept states hold the voxels the coupled pulls read only, all within the jump blocks, not
/// whole lattices (measured on these small grids, mostly interface: 84 of the finest level's 384
/// voxels and 68 of the middle level's 244 in 2D, 608 of 1 152 in 3D).
TEST(RefinedStep, KeepsOnlyTheVoxelsTheCouplingReads) {
  const auto expect_kept = [](const auto& levels, const auto& grid, const auto& step, const std::string& what) {
    for (int l = 0; l < grid.levels(); ++l) {
      if (grid.empty(l)) continue;
      const auto& level = grid.level(l);
      index_t at_jumps = 0;
      for (block_index_t b = 0; b < level.block_count(); ++b)
        at_jumps += grid.role(l, b) == RefinedBlockRole::leaf_at_jump
                        ? index_t(std::decay_t<decltype(grid)>::shape_type::voxels)
                        : 0;
      std::cout << what << " level " << l << ": " << step.kept_voxels(l) << " kept of " << level.voxel_count()
                << " voxels, " << at_jumps << " in jump blocks\n";
      // The coarsest level's states are read by no coarser level and none of its voxels pulls
      // from a state of its own start.
      if (l + 1 < grid.levels()) {
        EXPECT_GT(step.kept_voxels(l), 0) << what << " level " << l;
      }
      EXPECT_LE(step.kept_voxels(l), at_jumps) << what << " level " << l;
    }
    (void)levels;
  };
  const auto two = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0);
  const RefinedGrid<2, 2> grid2("kept_2d", two);
  const lbm::RefinedStep<lbm::D2Q9, double, lbm::BGK, 2> step2(two, grid2, lbm::RelaxationParams{});
  expect_kept(two, grid2, step2, "2D");
  const auto three = refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0);
  const RefinedGrid<3, 2> grid3("kept_3d", three);
  const lbm::RefinedStep<lbm::D3Q19, double, lbm::BGK, 2> step3(three, grid3, lbm::RelaxationParams{});
  expect_kept(three, grid3, step3, "3D");
}

}  // namespace
