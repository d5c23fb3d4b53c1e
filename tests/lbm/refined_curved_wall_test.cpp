// Curved walls on a refined grid: a body on the finest level is held by interpolated bounce-back
// (Bouzidi et al. 2001) through the cut links' kernel before each finest step, and the force on
// it is the momentum exchange over those links (curved_wall.hpp), as on the dense grid
// (RefinedStep's finest_links, RefinedSolver::body_force). A cylinder in a channel whose finest
// level covers only the region around it feels the drag of the uniform fine grid.
#include "refined_step_support.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/refined_solver.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

namespace {

using namespace karman;
using L = lbm::D2Q9;
constexpr int B = 4;
using Solver = lbm::RefinedSolver<L, double, lbm::TRT, B>;

constexpr int length = 128, height = 64;         // finest voxels along x (periodic) and y (closed)
constexpr double cx = 63.7, cy = 31.4, r = 6.3;  // the cylinder, off the voxel lattice's symmetry

/// A cylinder in a channel between the box's closed sides, periodic along x, driven by a body
/// force; its solid voxels (boundary id 1) are those whose centre lies inside the circle.
lbm::SolverSetup cylinder_in_a_channel(lbm::WallInterpolation interpolation) {
  lbm::SolverSetup s;
  s.variant.collision = "trt";
  s.global = {length, height, 1};
  s.periodic = {true, false, true};
  s.relaxation.omega = 1.0 / 0.8;  // nu = 0.1 on the finest level
  s.relaxation.force[0] = 2e-6;
  s.geometry = [](int x, int y, int) {
    const double dx = x - cx, dy = y - cy;
    return dx * dx + dy * dy <= r * r ? lbm::CellSpec{lbm::CellKind::solid, 1} : lbm::CellSpec{};
  };
  s.curved_wall.id = 1;
  s.curved_wall.interpolation = interpolation;
  s.curved_wall.fraction = [](int x, int y, int, int dx, int dy, int) {
    const double a[3] = {double(x), double(y), 0.0}, b[3] = {double(x + dx), double(y + dy), 0.0}, c[3] = {cx, cy, 0.0};
    return lbm::circle_link_fraction(a, b, c, r);
  };
  return s;
}

/// `levels` levels over the channel, the finest on the blocks meeting [x0, x1) x [y0, y1) finest
/// voxels (every block with one level: a uniform grid of the finest voxels).
RefinedLevels<2> finest_around(int levels, int x0, int x1, int y0, int y1) {
  const int top = levels - 1;
  return RefinedLevels<2>({length >> top, height >> top, 1}, B, {true, false, false}, levels,
                          [=](int level, const LevelBlockCoordinates& at) {
                            const int span = B << level, x = at[0] * span, y = at[1] * span;
                            return x + span > x0 && x < x1 && y + span > y0 && y < y1;
                          });
}

/// The drag on the cylinder after 16 000 finest steps from rest, and its cut links.
struct Drag {
  double force = 0;
  std::size_t links = 0;
};
Drag drag(const lbm::SolverSetup& setup, const RefinedLevels<2>& levels) {
  Solver solver(setup, levels, lbm::RefinedSchedule::disaggregated, lbm::Explosion::constant);
  solver.advance(16000 >> (levels.levels() - 1));
  return {solver.body_force()[0], solver.wall_links()};
}

/// The same links and the same drag as the dense solver on one level (to rounding), and within 1 %
/// of it on two levels, the finest on the 48 x 32 finest voxels around the body. Measured (TRT,
/// Bouzidi linear, 16 000 finest steps, the flow still accelerating): 6.35642e-3 dense and uniform,
/// 6.37042e-3 on two levels (+0.22 %), 120 links each.
TEST(RefinedCurvedWall, DragAsOnTheUniformFineGrid) {
  const lbm::SolverSetup setup = cylinder_in_a_channel(lbm::WallInterpolation::linear);
  const Drag uniform = drag(setup, finest_around(1, 0, length, 0, height)),
             refined = drag(setup, finest_around(2, 40, 88, 16, 48));
  auto dense = lbm::make_solver(setup);
  dense->advance(16000);
  const double on_the_dense_grid = dense->body_force()[0];
  std::cout << "drag: dense " << on_the_dense_grid << " over " << dense->wall_links() << " links, uniform fine "
            << uniform.force << " over " << uniform.links << " links, two levels " << refined.force << " over "
            << refined.links << '\n';
  EXPECT_GT(uniform.links, 0u);
  EXPECT_EQ(uniform.links, dense->wall_links());
  EXPECT_LT(std::abs(uniform.force - on_the_dense_grid), 1e-12 * on_the_dense_grid);
  EXPECT_EQ(refined.links, uniform.links);
  EXPECT_GT(uniform.force, 0.0);
  EXPECT_LT(std::abs(refined.force - uniform.force), 0.01 * uniform.force);
}

/// A body reaching a coarser level is refused, naming the voxel.
TEST(RefinedCurvedWall, RefusesABodyOffTheFinestLevel) {
  const lbm::SolverSetup setup = cylinder_in_a_channel(lbm::WallInterpolation::linear);
  try {
    Solver solver(setup, finest_around(2, 0, 48, 0, height), lbm::RefinedSchedule::disaggregated,
                  lbm::Explosion::constant);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("level 1 voxel (30, 13, 0) covers voxels of the curved body (boundary id 1), "
                                         "which must lie on the finest level"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
