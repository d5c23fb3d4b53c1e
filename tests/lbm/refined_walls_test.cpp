// Walls on a refined grid: the closed sides of the box bounce populations back on every level
// (half-way bounce-back through the flag words of the solver's stream-collide kernel,
// refined_step.hpp), so a closed box keeps its mass to rounding across level jumps, and a channel
// driven by a body force between two walls refined towards them reaches the Poiseuille profile.
#include "refined_reference.hpp"
#include "refined_step_support.hpp"

#include <karman/core/refined/refined_grid.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/d3q27.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/level_relaxation.hpp>
#include <karman/lbm/refined_geometry.hpp>
#include <karman/lbm/refined_step.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::test;  // refined_reference.hpp, refined_step_support.hpp

/// Mass after `steps` coarse steps relative to the start in a box closed on every side, from
/// populations that differ on every voxel (the fluid sloshes against the walls), with the wall
/// voxels of `walls` inside it.
template <class L, class T = double>
double closed_box_mass_change(const RefinedLevels<L::D>& levels, int steps,
                              lbm::Explosion explosion = lbm::Explosion::constant,
                              const lbm::RefinedGeometry& walls = {}) {
  using Grid = RefinedGrid<L::D, 2>;
  const Grid grid("refined_closed_box", levels, BlockGrouping::memory,
                  walls.cell ? lbm::refined_boundary<L, 2, Kokkos::DefaultExecutionSpace::memory_space>(levels, walls)
                             : typename Grid::Boundary{});
  lbm::RelaxationParams coarse;
  coarse.omega = 1.6;
  lbm::RefinedStepOptions options;
  options.explosion = explosion;
  options.geometry = walls;
  lbm::RefinedStep<L, T, lbm::BGK, 2> step(levels, grid, coarse, nullptr, options);
  set_populations(step, grid, initial<L>);
  const double before = mass(step, grid, walls);
  for (int n = 0; n < steps; ++n) step.step();
  return (mass(step, grid, walls) - before) / before;
}

/// The walls and the coupling move every population once: the mass changes by what the collisions
/// round, as on a uniform grid (about -9e-17 of itself a step with BGK in double, periodic or closed,
/// refined or not: docs/multiresolution.md).
TEST(RefinedWalls, ClosedBoxConservesMass) {
  const std::array<bool, 3> closed{false, false, false};
  // A round patch over three levels in a 64^2 finest box, its jumps away from the walls.
  const auto two = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 5.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(two, 10000)), 1e-12);
  // A ball over two levels in a 32^3 finest box.
  const auto three = refined_patch<3>({16, 16, 16}, 2, 2, {16.0, 15.0, 17.0}, 4.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D3Q19>(three, 500)), 1e-12);
}

/// Issue 53's long run: three levels, a patch inside a closed box, 10^5 coarse steps (4 * 10^5
/// finest). The coupling adds nothing to the collisions' rounding: measured, double -7.7e-12 (the
/// issue asks 1e-12), where the uniform grid of the finest voxels loses -3.1e-11 in as many finest
/// steps; float +2.5473e-5 after 10^4 coarse steps and the same to 8e-10 after 10^5, no drift,
/// where that uniform grid drifts (3.8e-4 after 4 * 10^4 steps, 2.1e-3 after 4 * 10^5). Both are
/// BGK's rounding in the precision stored: mass to 1e-12 over 10^5 steps needs a collision whose
/// rounding does not lean one way (docs/multiresolution.md).
TEST(RefinedWalls, ClosedBoxKeepsItsMassOverAHundredThousandSteps) {
  const std::array<bool, 3> closed{false, false, false};
  const auto patch = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 5.0, closed);
  const double in_double = closed_box_mass_change<lbm::D2Q9>(patch, 100000);
  const double float_short = closed_box_mass_change<lbm::D2Q9, float>(patch, 10000),
               float_long = closed_box_mass_change<lbm::D2Q9, float>(patch, 100000);
  std::cout << "mass change: double " << in_double << " after 1e5 coarse steps; float " << float_short << " after 1e4, "
            << float_long << " after 1e5\n";
  EXPECT_LT(std::abs(in_double), 1e-11);
  EXPECT_LT(std::abs(float_long), 5e-5);
  EXPECT_LT(std::abs(float_long - float_short), 1e-7) << "the float run drifts";
}

/// Level jumps that meet the closed sides: the coupling's virtual paths bounce off the sides as
/// the levels' own pulls do (level_coupling.hpp), so every population keeps one receiver and the
/// mass moves by the collisions' rounding only, as above: -3.0e-13 of itself after 3000 coarse
/// steps with the patch across a side, -3.0e-13 with it inside the box, -2.9e-13 unrefined.
TEST(RefinedWalls, ClosedBoxConservesMassWithJumpsAtTheSides) {
  const std::array<bool, 3> closed{false, false, false};
  // Three levels in a 64^2 finest box: a patch across the side x = 0, and one in the corner
  // (x = 63, y = 0), every level's jumps meeting both sides there.
  const auto side = refined_patch<2>({16, 16, 1}, 2, 3, {1.0, 30.0, 0.0}, 9.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(side, 3000)), 1e-12);
  const auto corner = refined_patch<2>({16, 16, 1}, 2, 3, {62.0, 2.0, 0.0}, 11.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(corner, 3000)), 1e-12);
  // Two levels in a 32^3 finest box, a ball over an edge of the box (D3Q19 and D3Q27).
  const auto edge = refined_patch<3>({16, 16, 16}, 2, 2, {1.0, 30.0, 15.0}, 6.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D3Q19>(edge, 500)), 1e-12);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D3Q27>(edge, 200)), 1e-12);
}

/// The linear explosion keeps the mass exact too: the children a coarser population reaches carry
/// offsets that cancel, every read of a virtual voxel naming its child, and the voxels next to a
/// closed side give their value alone (level_coupling.hpp). Measured: -3.0e-13 of itself after
/// 3000 coarse steps in 2D (inside, across a side, in a corner), -4.2e-14 after 500 in 3D; with
/// the voxels at the sides given a gradient too, 5e-7.
TEST(RefinedWalls, LinearExplosionConservesMass) {
  const std::array<bool, 3> closed{false, false, false};
  const auto inside = refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 5.0, closed);
  const auto side = refined_patch<2>({16, 16, 1}, 2, 3, {1.0, 30.0, 0.0}, 9.0, closed);
  const auto corner = refined_patch<2>({16, 16, 1}, 2, 3, {62.0, 2.0, 0.0}, 11.0, closed);
  const auto edge = refined_patch<3>({16, 16, 16}, 2, 2, {1.0, 30.0, 15.0}, 6.0, closed);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(inside, 3000, lbm::Explosion::linear)), 1e-12);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(side, 3000, lbm::Explosion::linear)), 1e-12);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D2Q9>(corner, 3000, lbm::Explosion::linear)), 1e-12);
  EXPECT_LT(std::abs(closed_box_mass_change<lbm::D3Q19>(edge, 500, lbm::Explosion::linear)), 1e-12);
}

/// A channel between walls at y = 0 and y = H (closed sides, half-way bounce-back), periodic along
/// x, driven by a body force along x: three levels, the finest next to the walls (8 finest voxels),
/// then level 1 (8 more), the coarsest in the middle. TRT with Lambda = 3/16, which every level
/// keeps (level_relaxation.hpp), puts the walls exactly half-way on each level, so a uniform grid
/// reaches the parabola to rounding. The coupling across the two jumps on each side carries the
/// populations unscaled between levels of different relaxation times (docs/multiresolution.md)
/// and keeps the parabola too, to what is left of the transient.
TEST(RefinedWalls, PoiseuilleAcrossLevelJumps) {
  constexpr int levels_count = 3, height = 64;  // finest voxels across the channel
  const RefinedLevels<2> levels({8, height >> 2, 1}, 2, {true, false, false}, levels_count,
                                [&](int level, const LevelBlockCoordinates& at) {
                                  const int span = 2 << level, lo = at[1] * span, hi = lo + span;
                                  return lo < 8 || hi > height - 8;
                                });
  const RefinedGrid<2, 2> grid("refined_poiseuille", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.25;  // nu = 0.1 on the coarsest level
  coarse.force[0] = 5e-5;
  lbm::RefinedStep<lbm::D2Q9, double, lbm::TRT, 2> step(levels, grid, coarse);
  const double rest[3] = {0, 0, 0};
  set_populations(step, grid,
                  [&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<lbm::D2Q9>(i, 1.0, rest); });
  // The slowest mode decays as exp(-nu pi^2 t / H^2): 6000 coarse steps leave 1e-10 of it.
  for (int n = 0; n < 6000; ++n) step.step();

  // The profile in finest lattice units, the same velocity on every level (acoustic scaling).
  const lbm::RelaxationParams finest = lbm::refined_relaxation(coarse, levels_count - 1);
  const double nu = (1.0 / finest.omega - 0.5) / 3.0, g = finest.force[0];
  const auto exact = [&](double y) { return g / (2.0 * nu) * y * (height - y); };
  const double peak = exact(height / 2.0);
  double worst = 0, worst_across = 0;
  int voxels_per_level[levels_count] = {};
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const double force = lbm::refined_relaxation(coarse, levels_count - 1 - l).force[0];
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      double rho = 0, jx = 0, jy = 0;
      for (int i = 0; i < lbm::D2Q9::Q; ++i) {
        rho += host(v, i);
        jx += lbm::D2Q9::c(i, 0) * host(v, i);
        jy += lbm::D2Q9::c(i, 1) * host(v, i);
      }
      // The stored populations are post-collision: their momentum holds half the step's force more.
      const double u = (jx - 0.5 * force) / rho, y = (coordinates(grid, l, v)[1] + 0.5) * double(1 << l);
      worst = std::max(worst, std::abs(u - exact(y)) / peak);
      worst_across = std::max(worst_across, std::abs(jy / rho) / peak);
      ++voxels_per_level[l];
    }
  }
  for (int l = 0; l < levels_count; ++l) EXPECT_GT(voxels_per_level[l], 0) << "level " << l;
  // Measured: 9.3e-11 (the transient left), 9.8e-6 after 3000 steps.
  EXPECT_LT(worst, 1e-8) << "largest deviation from the parabola, of its peak";
  EXPECT_LT(worst_across, 1e-9) << "largest velocity across the channel, of the peak";
}

/// The largest deviation from the parabola, of its peak, over the leaf voxels of a BGK Poiseuille
/// channel 64 finest voxels wide (periodic along x, 16 long, closed along y, driven by a body
/// force) at steady state: on `levels_count` levels, the finest within 8 finest voxels of the walls
/// (one level: a uniform grid of the finest level's voxels when `coarse_only` is false, of the
/// coarse level's when it is true). The same fluid every time: the coarse level relaxes
/// at omega = 1, the finer one as level_relaxation.hpp says.
double bgk_channel_error(int levels_count, bool coarse_only) {
  constexpr int height = 64, length = 16;
  const int shift = levels_count == 2 || coarse_only ? 1 : 0;  // finest voxels a coarsest voxel spans, log2
  const RefinedLevels<2> levels({length >> shift, height >> shift, 1}, 2, {true, false, false}, levels_count,
                                [&](int level, const LevelBlockCoordinates& at) {
                                  const int span = 2 << level, lo = at[1] * span;
                                  return lo < 8 || lo + span > height - 8;
                                });
  const RefinedGrid<2, 2> grid("refined_bgk_channel", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.0;
  coarse.force[0] = 1e-5;
  // A uniform fine grid relaxes as the refined grid's finest level.
  const lbm::RelaxationParams coarsest = shift == 0 ? lbm::refined_relaxation(coarse, 1) : coarse;
  lbm::RefinedStep<lbm::D2Q9, double, lbm::BGK, 2> step(levels, grid, coarsest);
  const double rest[3] = {0, 0, 0};
  set_populations(step, grid,
                  [&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<lbm::D2Q9>(i, 1.0, rest); });
  const int steps = shift == 0 ? 24000 : 12000;  // 24 000 finest steps: exp(-pi^2 nu t / H^2) ~ 1e-9
  for (int n = 0; n < steps; ++n) step.step();

  const lbm::RelaxationParams finest = lbm::refined_relaxation(coarse, 1);
  const double nu = (1.0 / finest.omega - 0.5) / 3.0, g = finest.force[0];
  const auto exact = [&](double y) { return g / (2.0 * nu) * y * (height - y); };
  double worst = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const double force = lbm::refined_relaxation(coarsest, grid.levels() - 1 - l).force[0];
    const int scale = 1 << (l + (shift == 1 && levels_count == 1 ? 1 : 0));  // finest voxels a voxel spans
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      double rho = 0, jx = 0;
      for (int i = 0; i < lbm::D2Q9::Q; ++i) {
        rho += host(v, i);
        jx += lbm::D2Q9::c(i, 0) * host(v, i);
      }
      const double u = (jx - 0.5 * force) / rho, y = (coordinates(grid, l, v)[1] + 0.5) * double(scale);
      worst = std::max(worst, std::abs(u - exact(y)) / exact(height / 2.0));
    }
  }
  return worst;
}

/// Issue 53's check of a band parallel to the walls, with a collision whose walls slip: BGK's
/// half-way bounce-back puts a wall off the half-way plane by a distance that depends on tau, so
/// each grid has its own error, set at the walls. The refined channel (the finest level at the
/// walls, the coarse one in the middle) errs as the uniform fine grid does, the coarse middle and
/// the jumps adding nothing measurable. Measured: refined and uniform fine 1.0579426e-3 of the
/// peak (equal to eight digits), uniform coarse 3.3e-4 (its tau = 1 slips less than the fine grid's 1.5:
/// acoustic scaling).
TEST(RefinedWalls, BgkChannelErrsAsTheUniformFineGrid) {
  const double coarse = bgk_channel_error(1, true), fine = bgk_channel_error(1, false),
               refined = bgk_channel_error(2, false);
  std::cout << std::setprecision(8) << "BGK channel, of the peak: uniform coarse " << coarse << ", refined " << refined
            << ", uniform fine " << fine << '\n';
  EXPECT_LT(std::abs(refined - fine), 1e-3 * fine);
  EXPECT_GT(std::abs(coarse - fine), 0.1 * fine) << "the grids should err apart";
}

/// The Poiseuille channel of the test above with the finest level in a band across it, x in
/// [lo, hi) finest voxels, the jumps meeting both walls: the flow crosses two interfaces. Returns
/// the largest deviation of a leaf voxel's velocity from the parabola, of its peak, on each level,
/// and the largest change of the flux through a column along x, of the mean flux.
struct CrossingResult {
  double worst[2] = {0, 0};
  double flux_change = 0;
};
template <class Collision>
CrossingResult poiseuille_through_a_band(int steps, lbm::Explosion explosion = lbm::Explosion::constant) {
  constexpr int height = 32, length = 64, lo = 24, hi = 40;
  const RefinedLevels<2> levels(
      {length / 2, height / 2, 1}, 2, {true, false, false}, 2,
      [&](int, const LevelBlockCoordinates& at) { return at[0] * 4 + 4 > lo && at[0] * 4 < hi; });
  const RefinedGrid<2, 2> grid("refined_crossing", levels);
  lbm::RelaxationParams coarse;
  coarse.omega = 1.25;
  coarse.force[0] = 2e-5;
  lbm::RefinedStepOptions options;
  options.explosion = explosion;
  lbm::RefinedStep<lbm::D2Q9, double, Collision, 2> step(levels, grid, coarse, nullptr, options);
  const double rest[3] = {0, 0, 0};
  set_populations(step, grid,
                  [&](int, const std::array<int, 3>&, int i) { return lbm::equilibrium<lbm::D2Q9>(i, 1.0, rest); });
  for (int n = 0; n < steps; ++n) step.step();

  const lbm::RelaxationParams finest = lbm::refined_relaxation(coarse, 1);
  const double nu = (1.0 / finest.omega - 0.5) / 3.0, g = finest.force[0];
  const auto exact = [&](double y) { return g / (2.0 * nu) * y * (height - y); };
  const double peak = exact(height / 2.0);
  CrossingResult result;
  std::vector<double> flux(length, 0.0);
  for (int l = 0; l < 2; ++l) {
    const double force = lbm::refined_relaxation(coarse, 1 - l).force[0];
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v)) continue;
      double rho = 0, jx = 0;
      for (int i = 0; i < lbm::D2Q9::Q; ++i) {
        rho += host(v, i);
        jx += lbm::D2Q9::c(i, 0) * host(v, i);
      }
      const std::array<int, 3> x = coordinates(grid, l, v);
      const double u = (jx - 0.5 * force) / rho, y = (x[1] + 0.5) * double(1 << l);
      result.worst[l] = std::max(result.worst[l], std::abs(u - exact(y)) / peak);
      for (int k = 0; k < (1 << l); ++k) flux[std::size_t((x[0] << l) + k)] += (jx - 0.5 * force) * double(1 << l);
    }
  }
  const double mean = std::accumulate(flux.begin(), flux.end(), 0.0) / length;
  for (const double f : flux) result.flux_change = std::max(result.flux_change, std::abs(f - mean) / mean);
  return result;
}

/// The flow crossing a level jump: the coupling's default explodes the coarse post-collision
/// value alike over the fine voxels of its space, first order where the velocity varies along the
/// jump (lbm_refined_order_test), and leaves a steady defect next to the jumps, an odd-even wave
/// of the mass flux along x in the band and a profile off the parabola (docs/multiresolution.md).
/// Measured: 3.34 % (finest) and 2.50 % (coarse) of the peak with TRT, the mass flux through a
/// column off its mean by up to 1.2e-3; the targets (second order, flux continuous to
/// 1e-6) wait for a linear explosion. The bounds keep the defect from growing unnoticed, and the
/// steady state is checked.
TEST(RefinedWalls, PoiseuilleThroughABand) {
  const CrossingResult steady = poiseuille_through_a_band<lbm::TRT>(4000);
  const CrossingResult later = poiseuille_through_a_band<lbm::TRT>(6000);
  std::cout << "finest " << later.worst[0] << ", coarse " << later.worst[1] << " of the peak; flux off its mean by "
            << later.flux_change << '\n';
  EXPECT_LT(std::abs(later.worst[0] - steady.worst[0]), 1e-6) << "not steady";
  EXPECT_LT(later.worst[0], 0.035);
  EXPECT_LT(later.worst[1], 0.026);
  EXPECT_LT(later.flux_change, 1.3e-3);
}

/// The same band with the linear explosion: the defect shrinks, most on the coarse level, but stays
/// (measured 2.80 % and 1.28 % of the peak, flux off by 8.3e-4): where the jumps meet the walls the
/// explosion stays constant, and the rest is not the explosion's (docs/multiresolution.md).
TEST(RefinedWalls, PoiseuilleThroughABandLinearExplosion) {
  const CrossingResult linear = poiseuille_through_a_band<lbm::TRT>(6000, lbm::Explosion::linear);
  std::cout << "linear explosion: finest " << linear.worst[0] << ", coarse " << linear.worst[1]
            << " of the peak; flux off its mean by " << linear.flux_change << '\n';
  EXPECT_LT(linear.worst[0], 0.029);
  EXPECT_LT(linear.worst[1], 0.0135);
  EXPECT_LT(linear.flux_change, 8.7e-4);
}

/// Two levels in a closed 2D box of 32 finest voxels a side: the finest within 8 voxels of its
/// sides, the coarse level inside.
RefinedLevels<2> shell_levels() {
  return RefinedLevels<2>({16, 16, 1}, 2, {false, false, false}, 2, [](int, const LevelBlockCoordinates& at) {
    const int lo_x = at[0] * 4, lo_y = at[1] * 4;
    return lo_x < 8 || lo_x + 4 > 24 || lo_y < 8 || lo_y + 4 > 24;
  });
}

/// The message of the karman::Error that building a D2Q9 step throws, or "" when none.
std::string refusal(const RefinedLevels<2>& levels, const RefinedGrid<2, 2>& grid, const lbm::RefinedGeometry& walls) {
  lbm::RefinedStepOptions options;
  options.geometry = walls;
  try {
    const lbm::RefinedStep<lbm::D2Q9, double, lbm::BGK, 2> step(levels, grid, lbm::RelaxationParams{}, nullptr,
                                                                options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// A plate across the closed box, two finest rows thick (y = 16, 17; y = 8 on the coarse level),
/// whose voxels the shell's level jumps cross: the coupling's paths bounce off it as the levels'
/// own pulls do (level_coupling.hpp), so the mass stays exact. Measured: -4.0e-13 of itself after
/// 3000 coarse steps.
TEST(RefinedWalls, WallsAtLevelJumpsConserveMass) {
  lbm::RefinedGeometry plate;
  plate.cell = [](int level, const std::array<int, 3>& x) {
    const bool wall = x[1] == (16 >> level) || (level == 0 && x[1] == 17);
    return wall ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
  };
  const double change = closed_box_mass_change<lbm::D2Q9>(shell_levels(), 3000, lbm::Explosion::constant, plate);
  std::cout << "a plate across the jumps: mass change " << change << '\n';
  EXPECT_LT(std::abs(change), 1e-12);
}

/// The Poiseuille band's channel (closed sides along y)
/// and the same channel with two rows of wall voxels
/// past each wall inside a taller box (one coarse row
/// each side): the wall voxels bounce the jumps' paths
/// as the closed sides do, so the fluid voxels of both
/// hold the same bits.
TEST(RefinedWalls, WallVoxelsAtJumpsBounceAsClosedSides) {
  constexpr int height = 32, length = 64, lo = 24, hi = 40, pad = 2;
  const auto band = [](int, const LevelBlockCoordinates& at) { return at[0] * 4 + 4 > lo && at[0] * 4 < hi; };
  lbm::RelaxationParams coarse;
  coarse.omega = 1.25;
  coarse.force[0] = 2e-5;
  const auto run = [&](int rows, const lbm::RefinedGeometry& geometry) {
    const RefinedLevels<2> levels({length / 2, rows / 2, 1}, 2, {true, false, false}, 2, band);
    const RefinedGrid<2, 2> grid(
        "refined_padded", levels, BlockGrouping::memory,
        lbm::refined_boundary<lbm::D2Q9, 2, Kokkos::DefaultExecutionSpace::memory_space>(levels, geometry));
    lbm::RefinedStepOptions options;
    options.geometry = geometry;
    lbm::RefinedStep<lbm::D2Q9, double, lbm::TRT, 2> step(levels, grid, coarse, nullptr, options);
    const int offset = rows == height ? 0 : pad;  // finest rows below the channel
    set_populations(step, grid, [&](int l, const std::array<int, 3>& at, int i) {
      return initial<lbm::D2Q9>(l, {at[0], at[1] - (offset >> l), at[2]}, i);
    });
    for (int n = 0; n < 300; ++n) step.step();
    // Each fluid leaf voxel's populations by level and
    // channel coordinates.
    std::map<std::array<int, 4>, std::vector<double>> fluid;
    for (int l = 0; l < 2; ++l) {
      const auto host = host_copy(step.populations(l));
      for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
        const std::array<int, 3> x = coordinates(grid, l, v);
        if (!leaf(grid, l, v) || geometry.at(l, x).kind == lbm::CellKind::solid) continue;
        std::vector<double>& f = fluid[{l, x[0], x[1] - (offset >> l), x[2]}];
        for (int i = 0; i < lbm::D2Q9::Q; ++i) f.push_back(host(v, i));
      }
    }
    return fluid;
  };
  lbm::RefinedGeometry walls;
  walls.cell = [](int level, const std::array<int, 3>& x) {
    const int y = x[1] << level;
    return y < pad || y >= pad + height ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
  };
  const auto closed = run(height, {}), padded = run(height + 2 * pad, walls);
  ASSERT_EQ(closed.size(), std::size_t((hi - lo) * height + (length - (hi - lo)) / 2 * height / 2));
  ASSERT_EQ(closed.size(), padded.size());
  for (const auto& [at, f] : closed) {
    const auto other = padded.find(at);
    ASSERT_NE(other, padded.end()) << "level " << at[0] << " voxel (" << at[1] << ", " << at[2] << ")";
    ASSERT_EQ(f, other->second) << "level " << at[0] << " voxel (" << at[1] << ", " << at[2] << ")";
  }
}

/// What the coupling cannot take is refused, naming the voxel: a path that a coupled pull takes off
/// a moving wall (the tables carry no Ladd term), and a wall at a jump that fills a coarse voxel's
/// space in part (the plate one finest row thick, y = 16, where the coarse level's y = 8 covers
/// rows 16 and 17).
TEST(RefinedWalls, RefusesWhatTheCouplingCannotTakeAtLevelJumps) {
  const RefinedLevels<2> levels = shell_levels();
  const auto refused = [&](const lbm::RefinedGeometry& walls) {
    const RefinedGrid<2, 2> grid(
        "refined_plate", levels, BlockGrouping::memory,
        lbm::refined_boundary<lbm::D2Q9, 2, Kokkos::DefaultExecutionSpace::memory_space>(levels, walls));
    return refusal(levels, grid, walls);
  };
  lbm::RefinedGeometry moving;
  moving.cell = [](int level, const std::array<int, 3>& x) {
    return x[1] == (16 >> level) || (level == 0 && x[1] == 17) ? lbm::CellSpec{lbm::CellKind::solid, 1}
                                                               : lbm::CellSpec{};
  };
  moving.boundaries.values[1].u[0] = 0.01;
  const std::string bounced = refused(moving);
  EXPECT_NE(bounced.find("bounced off a moving wall"), std::string::npos) << bounced;

  lbm::RefinedGeometry thin;
  thin.cell = [](int level, const std::array<int, 3>& x) {
    return x[1] == (16 >> level) ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
  };
  const std::string part = refused(thin);
  EXPECT_NE(part.find("a wall at a level jump must fill whole voxels of the coarser level"), std::string::npos) << part;

  // The same levels with a post a block away from the
  // jumps (finest x = 3 in the shell) run.
  lbm::RefinedGeometry post;
  post.cell = [](int level, const std::array<int, 3>& x) {
    return level == 0 && x[0] == 3 && x[1] == 16 ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
  };
  EXPECT_EQ(refused(post), "");
}

/// A grid built without the geometry's classifier runs
/// the blocks around an inner wall as bulk blocks, which
/// read no flag words: the step refuses it rather than
/// stream through the wall.
TEST(RefinedWalls, RefusesGridsBlindToTheWalls) {
  const RefinedLevels<2> levels = shell_levels();
  lbm::RefinedGeometry post;
  post.cell = [](int level, const std::array<int, 3>& x) {
    return level == 0 && x[0] == 3 && x[1] == 16 ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
  };
  const RefinedGrid<2, 2> blind("refined_blind", levels);
  const std::string message = refusal(levels, blind, post);
  EXPECT_NE(message.find("refined_boundary"), std::string::npos) << message;
}

}  // namespace
