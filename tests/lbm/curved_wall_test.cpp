// Curved walls (curved_wall.hpp): link fractions of a circle, the interpolation of Bouzidi et al.
// (2001), the momentum-exchange force against a channel's momentum balance and the analytic wall
// shear, off-lattice Poiseuille walls, the parabolic inflow profile, and the cylinder case's
// lattice, inflow and symmetry in 2D and 3D.
#include "lbm_test_support.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

using namespace karman;
using namespace karman::lbm;

TEST(CircleLinkFraction, KnownIntersections) {
  const double o[3] = {0, 0, 0};
  // Along x into a circle whose leftmost point is x = 0.5.
  EXPECT_DOUBLE_EQ(circle_link_fraction(o, {1, 0, 0}, {1.5, 0, 0}, 1.0), 0.5);
  EXPECT_NEAR(circle_link_fraction(o, {1, 0, 0}, {1.2, 0, 0}, 1.0), 0.2, 1e-15);
  // The neighbour exactly on the circle: q = 1.
  EXPECT_NEAR(circle_link_fraction(o, {0, 1, 0}, {0, 2, 0}, 1.0), 1.0, 1e-15);
  // A diagonal link towards the centre: the surface at distance 2 - r from it, link length sqrt 2.
  const double r = 2.0 - 0.3 * std::sqrt(2.0);
  EXPECT_NEAR(circle_link_fraction(o, {1, 1, 0}, {std::sqrt(2.0), std::sqrt(2.0), 0}, r), 0.3, 1e-14);
  // An off-centre chord: x^2 + (0.6)^2 = 1 from (-2, 0.6) to (-0.5, 0.6) enters at x = -0.8.
  EXPECT_NEAR(circle_link_fraction({-2, 0.6, 0}, {-0.5, 0.6, 0}, {0, 0, 0}, 1.0), 1.2 / 1.5, 1e-14);
  // A sphere in 3D.
  EXPECT_NEAR(circle_link_fraction(o, {0, 0, 1}, {0, 0, 1.75}, 1.0), 0.75, 1e-15);
  // Links that do not enter are set-up bugs.
  EXPECT_THROW(circle_link_fraction(o, {1, 0, 0}, {0, 0, 0}, 1.0), std::logic_error);
  EXPECT_THROW(circle_link_fraction(o, {1, 0, 0}, {3, 0, 0}, 1.0), std::logic_error);
}

// Bouzidi et al. (2001) interpolate the reflected population along the link: for q < 1/2 the
// outgoing populations f*_opp at distances s = 0, 1, 2 from x_f (away from the wall) are
// evaluated at s = 1 - 2q; for q >= 1/2 the reflected value, which lands at s = -(2q - 1), and
// the incoming f*_i at s = 1, 2 are evaluated at s = 0. Each order is exact for polynomials of
// its degree.
TEST(InterpolatedBounceBack, ExactForPolynomialsOfItsOrder) {
  auto g = [](double s) { return 0.3 - 0.07 * s + 0.011 * s * s; };
  auto line = [](double s) { return 0.3 - 0.07 * s; };
  for (double q : {0.05, 0.2, 0.37, 0.49, 0.5, 0.63, 0.8, 1.0}) {
    if (q < 0.5) {
      EXPECT_NEAR(interpolated_bounce_back(2, q, g(0), g(1), g(2), 9.0, 9.0), g(1 - 2 * q), 1e-15) << q;
      EXPECT_NEAR(interpolated_bounce_back(1, q, line(0), line(1), 9.0, 9.0, 9.0), line(1 - 2 * q), 1e-15) << q;
    } else {
      EXPECT_NEAR(interpolated_bounce_back(2, q, g(1 - 2 * q), 9.0, 9.0, g(1), g(2)), g(0), 1e-15) << q;
      EXPECT_NEAR(interpolated_bounce_back(1, q, line(1 - 2 * q), 9.0, 9.0, line(1), 9.0), line(0), 1e-15) << q;
    }
    // Order 0 is half-way bounce-back whatever q.
    EXPECT_EQ(interpolated_bounce_back(0, q, 0.25, 9.0, 9.0, 9.0, 9.0), 0.25);
  }
  // Every order is half-way bounce-back at q = 1/2, from either branch.
  for (int order : {1, 2}) {
    EXPECT_NEAR(interpolated_bounce_back(order, 0.5 - 1e-12, 0.25, 0.5, 0.75, 1.0, 2.0), 0.25, 1e-11);
    EXPECT_DOUBLE_EQ(interpolated_bounce_back(order, 0.5, 0.25, 0.5, 0.75, 1.0, 2.0), 0.25);
  }
}

/// A body-force channel along x (periodic) whose walls are curved-wall bodies: the wall below at
/// y = 1 - q_low (between rows 0 and 1), the wall above at y = height + q_high.
struct OffLatticeChannel {
  int height = 16, length = 4;
  double q_low = 0.5, q_high = 0.5, nu = 0.1, max_velocity = 0.02;

  double low() const { return 1.0 - q_low; }
  double high() const { return height + q_high; }
  double force() const { return 8.0 * nu * max_velocity / ((high() - low()) * (high() - low())); }
  double exact(int j) const { return force() / (2.0 * nu) * (j - low()) * (high() - j); }
  /// Steps for the start-up to decay below 1e-10: 25 times the slowest mode's decay time
  /// W^2 / (pi^2 nu).
  int settling_steps() const { return int(25.0 * (high() - low()) * (high() - low()) / (9.8696 * nu)); }

  SolverSetup setup(WallInterpolation wall) const {
    SolverSetup s;
    s.variant = Variant{"d2q9", "double", "soa", "trt", "ab"};
    s.global = {length, height + 2, 1};
    s.periodic = {true, false, true};
    s.relaxation.omega = 1.0 / (3.0 * nu + 0.5);
    s.relaxation.force[0] = force();
    const int top = height + 1;
    s.geometry = [top](int, int y, int) { return y == 0 || y == top ? CellSpec{CellKind::solid, 1} : CellSpec{}; };
    s.curved_wall.id = 1;
    s.curved_wall.interpolation = wall;
    const double ql = q_low, qh = q_high;
    s.curved_wall.fraction = [ql, qh](int, int, int, int, int dy, int) { return dy < 0 ? ql : qh; };
    return s;
  }
};

double profile_error(const OffLatticeChannel& c, const test::HostMoments& m) {
  double num = 0, den = 0;
  for (int j = 1; j <= c.height; ++j) {
    const double got = m.u[3 * std::size_t(j * c.length + 1)], want = c.exact(j);
    num += (got - want) * (got - want);
    den += want * want;
  }
  return std::sqrt(num / den);
}

// Walls half-way between rows: the momentum exchange equals the analytic wall shear stress
// rho nu du/dy = F W / 2 on each wall, i.e. F W L on both, and the body force put in (the
// steady state's momentum balance); no force across the channel.
TEST(MomentumExchange, PoiseuilleWallShearMatchesAnalytic) {
  OffLatticeChannel c;
  auto solver = make_solver(c.setup(WallInterpolation::bounce_back));
  EXPECT_EQ(solver->wall_links(), std::size_t(2 * 3 * c.length));
  solver->advance(c.settling_steps());
  const auto f = solver->body_force();
  const double shear = c.force() * (c.high() - c.low()) * c.length;
  std::printf("bounce-back walls: wall force %.10e, analytic wall shear %.10e\n", f[0], shear);
  EXPECT_NEAR(f[0] / shear, 1.0, 1e-9);
  EXPECT_NEAR(f[1] / shear, 0.0, 1e-12);
  EXPECT_LT(profile_error(c, test::host_moments(*solver)), 1e-6);
}

// Walls off the half-way points: Bouzidi's interpolation puts them where they are, with a
// second-order error (Bouzidi et al. 2001 §IV: the error falls fourfold as H doubles);
// half-way bounce-back cannot. The momentum exchange balances the body force on the fluid voxels
// whatever the scheme.
TEST(MomentumExchange, OffLatticeWallsPoiseuille) {
  double errors[2][3] = {};
  for (int level = 0; level < 2; ++level) {
    OffLatticeChannel c;
    c.height = 16 << level;
    c.q_low = 0.2;
    c.q_high = 0.8;
    for (WallInterpolation w :
         {WallInterpolation::bounce_back, WallInterpolation::linear, WallInterpolation::quadratic}) {
      auto solver = make_solver(c.setup(w));
      solver->advance(c.settling_steps());
      const auto f = solver->body_force();
      const double put_in = c.force() * c.height * c.length;
      const double error = profile_error(c, test::host_moments(*solver));
      errors[level][int(w)] = error;
      std::printf("%s walls at q = %.1f, %.1f, H = %d: profile L2 error %.3e, wall force / body force %.12f\n",
                  wall_interpolation_name(w), c.q_low, c.q_high, c.height, error, f[0] / put_in);
      EXPECT_NEAR(f[0] / put_in, 1.0, 1e-9) << wall_interpolation_name(w);
      EXPECT_NEAR(f[1] / put_in, 0.0, 1e-9) << wall_interpolation_name(w);
    }
  }
  for (int w = 1; w <= 2; ++w) {
    EXPECT_LT(errors[0][w], 1e-2) << w;
    EXPECT_LT(errors[1][w], errors[0][w] / 3.0) << "order " << w << " is not second order";
    EXPECT_GT(errors[0][0], 5 * errors[0][w]) << w;
  }
}

// The parabolic inflow (BoundaryValue::profile): the inlet voxels carry the parabola exactly,
// and an empty channel behind it stays Poiseuille to the outlet.
TEST(InflowProfile, ParabolaAtTheInletAndDownstream) {
  constexpr int height = 16, length = 48;
  const double u_max = 0.03;
  SolverSetup s;
  s.variant = Variant{"d2q9", "double", "soa", "trt", "ab"};
  s.global = {length, height + 2, 1};
  s.relaxation.omega = 1.0 / (3.0 * 0.05 + 0.5);
  BoundaryValue& in = s.boundaries.values[1];
  in.u[0] = u_max;
  in.profile_axis[0] = 1;
  in.profile_lo[0] = 0.5;
  in.profile_hi[0] = height + 0.5;
  s.boundaries.values[2] = {1.0, {0, 0, 0}, 0, -1};
  s.geometry = [](int x, int y, int) {
    if (y == 0 || y == height + 1) return CellSpec{CellKind::solid, 0};
    if (x == 0) return CellSpec{CellKind::velocity_boundary, 1};
    if (x == length - 1) return CellSpec{CellKind::pressure_boundary, 2};
    return CellSpec{};
  };
  const auto m = test::run(s, 12000);
  double num = 0, den = 0;
  for (int j = 1; j <= height; ++j) {
    const double at[3] = {0.0, double(j), 0.0};
    const double want = u_max * in.profile(at);
    EXPECT_NEAR(m.u[3 * std::size_t(j * length)], want, 1e-14) << "inlet row " << j;
    const double got = m.u[3 * std::size_t(j * length + length / 2)];
    num += (got - want) * (got - want);
    den += want * want;
  }
  std::printf("parabolic inflow: mid-channel L2 error against the inlet parabola %.3e\n", std::sqrt(num / den));
  EXPECT_LT(std::sqrt(num / den), 5e-3);
}

// A cylinder on the channel's centre line: mirror-symmetric geometry, so no lift at Re 20 while
// the drag is positive, for each wall treatment.
TEST(Cylinder, CentredCylinderHasNoLift) {
  for (WallInterpolation w :
       {WallInterpolation::bounce_back, WallInterpolation::linear, WallInterpolation::quadratic}) {
    cases::CylinderParams p;
    p.diameter = 10;
    p.wall = w;
    p.centre_y = 0.5 * cases::cylinder_channel_height;
    auto solver = make_solver(cases::cylinder_setup(p, Variant{"d2q9", "double", "soa", "trt", "ab"}));
    EXPECT_GT(solver->wall_links(), std::size_t(0));
    solver->advance(1500);
    const auto f = solver->body_force();
    const auto l = cases::cylinder_lattice(p);
    const double cd = 2 * f[0] / (l.mean_velocity * l.mean_velocity * p.diameter);
    const double cl = 2 * f[1] / (l.mean_velocity * l.mean_velocity * p.diameter);
    std::printf("centred cylinder, %s: c_D %.6f, c_L %.3e after 1500 steps\n", wall_interpolation_name(w), cd, cl);
    EXPECT_TRUE(std::isfinite(cd) && cd > 1.0) << wall_interpolation_name(w) << ": c_D " << cd;
    EXPECT_LT(std::fabs(cl), 1e-9 * cd) << wall_interpolation_name(w);
  }
}

// On a grid of levels the same channel lies on whole voxels of the coarsest level: for two levels
// (coarsest voxels of 2 finest) and D = 20, two wall rows below the 82 fluid rows, the inlet in
// columns 0 and 1 (its plane at x = 0.5), the outlet in columns 440 and 441, wall voxels past them
// and above the top wall up to whole coarsest blocks (16 finest voxels); the cylinder 2 D past the
// inlet's plane, its centre 0.2 above the wall half-way between rows 1 and 2.
TEST(Cylinder, LatticeLiesOnWholeCoarsestVoxels) {
  cases::CylinderParams p;
  p.diameter = 20;
  p.levels = 2;
  const auto l = cases::cylinder_lattice(p);
  EXPECT_EQ(l.wall_rows, 2);
  EXPECT_EQ(l.fluid_rows, 82);
  EXPECT_EQ(l.outlet_x, 440);
  EXPECT_EQ(l.nx, 448);
  EXPECT_EQ(l.ny, 96);
  EXPECT_DOUBLE_EQ(l.inlet_x, 0.5);
  EXPECT_DOUBLE_EQ(l.centre[0], 40.5);
  EXPECT_DOUBLE_EQ(l.centre[1], 41.5);
  const SolverSetup s = cases::cylinder_setup(p, Variant{"d2q9", "double", "soa", "trt", "ab"});
  EXPECT_EQ(s.global.nx, 448);
  EXPECT_EQ(s.global.ny, 96);
  const auto kind = [&](int x, int y) { return s.geometry(x, y, 0).kind; };
  EXPECT_EQ(kind(5, 1), CellKind::solid);
  EXPECT_EQ(kind(0, 2), CellKind::velocity_boundary);
  EXPECT_EQ(kind(1, 83), CellKind::velocity_boundary);
  EXPECT_EQ(kind(2, 2), CellKind::fluid);
  EXPECT_EQ(kind(439, 50), CellKind::fluid);
  EXPECT_EQ(kind(440, 50), CellKind::pressure_boundary);
  EXPECT_EQ(kind(441, 2), CellKind::pressure_boundary);
  EXPECT_EQ(kind(442, 50), CellKind::solid);
  EXPECT_EQ(kind(100, 84), CellKind::solid);
  EXPECT_EQ(kind(40, 41), CellKind::solid);  // the cylinder
  // The inflow parabola vanishes on the walls, half-way between rows 1 and 2 and rows 83 and 84.
  const BoundaryValue& in = s.boundaries.values[1];
  EXPECT_DOUBLE_EQ(in.profile_lo[0], 1.5);
  EXPECT_DOUBLE_EQ(in.profile_hi[0], 83.5);
  // A diameter whose rows are no whole number of coarsest voxels is refused, with one that fits.
  p.diameter = 13;
  try {
    cases::cylinder_setup(p, Variant{"d2q9", "double", "soa", "trt", "ab"});
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("e.g. --diameter 16"), std::string::npos) << e.what();
  }
}

// The lattice follows the benchmark's geometry: 2D-1 in a 2.2 x 0.41 channel, 3D-1Z in a
// 2.5 x 0.41 x 0.41 duct with the cylinder's axis at x = 0.5, the middle plane z = 0.205 on a
// layer when 4.1 D is odd.
TEST(Cylinder, LatticeFollowsTheBenchmark) {
  cases::CylinderParams p;
  p.diameter = 10;
  p.max_velocity = 0.05;
  const auto l2 = cases::cylinder_lattice(p);
  EXPECT_EQ(l2.dimension, 2);
  EXPECT_EQ(l2.nx, 221);
  EXPECT_EQ(l2.ny, 43);
  EXPECT_EQ(l2.nz, 1);
  EXPECT_DOUBLE_EQ(l2.centre[0], 20.0);
  EXPECT_DOUBLE_EQ(l2.mean_velocity, 2.0 / 3.0 * 0.05);
  EXPECT_DOUBLE_EQ(l2.span, 1.0);
  p.benchmark = cases::CylinderCase::steady_3d1z;
  const auto l3 = cases::cylinder_lattice(p);
  EXPECT_EQ(l3.dimension, 3);
  EXPECT_EQ(l3.nx, 251);
  EXPECT_EQ(l3.ny, 43);
  EXPECT_EQ(l3.nz, 43);
  EXPECT_EQ(l3.fluid_rows, 41);
  EXPECT_DOUBLE_EQ(l3.centre[0], 50.0);
  EXPECT_DOUBLE_EQ(l3.centre[1], 20.5);
  EXPECT_DOUBLE_EQ(l3.middle_z, 21.0);
  EXPECT_DOUBLE_EQ(l3.span, 41.0);
  EXPECT_DOUBLE_EQ(l3.dx, 0.01);
  EXPECT_DOUBLE_EQ(l3.dt, 0.05 * 0.01 / 0.45);
  EXPECT_DOUBLE_EQ(l3.mean_velocity, 4.0 / 9.0 * 0.05);
  // Re = U_mean D / nu = 20 in lattice units too.
  EXPECT_NEAR(l3.mean_velocity * p.diameter / l3.viscosity, 20.0, 1e-12);
  p.benchmark = cases::CylinderCase::periodic_3d2z;
  EXPECT_NEAR(cases::cylinder_lattice(p).mean_velocity * p.diameter / cases::cylinder_lattice(p).viscosity, 100.0,
              1e-12);
  EXPECT_DOUBLE_EQ(cases::cylinder_benchmark(p.benchmark).max_velocity, 2.25);
  EXPECT_DOUBLE_EQ(cases::cylinder_benchmark(p.benchmark).mean_velocity, 1.0);
  for (auto c : {cases::CylinderCase::steady_2d1, cases::CylinderCase::periodic_2d2, cases::CylinderCase::steady_3d1z,
                 cases::CylinderCase::periodic_3d2z}) {
    EXPECT_EQ(cases::cylinder_case_from_name(cases::cylinder_case_name(c)), c);
  }
  EXPECT_THROW(cases::cylinder_case_from_name("3d-3z"), Error);
}

// 3D-1Z's inlet: U = 16 U_m y z (H - y)(H - z) / H^4 at the voxel centres y = (j - 1/2) dx,
// z = (k - 1/2) dx, vanishing on the walls half a voxel past the fluid; the walls of the duct and
// the cylinder through every layer are solid, and the initial state carries the inflow.
TEST(Cylinder, DuctInflowIsTheProductOfParabolas) {
  cases::CylinderParams p;
  p.benchmark = cases::CylinderCase::steady_3d1z;
  p.diameter = 6;
  p.max_velocity = 0.04;
  const auto l = cases::cylinder_lattice(p);
  const SolverSetup s = cases::cylinder_setup(p, Variant{"d3q19", "double", "soa", "trt", "ab"});
  EXPECT_EQ(s.global.nz, l.nz);
  const BoundaryValue& in = s.boundaries.values[1];
  const double h = l.fluid_rows * l.dx;
  for (int j = 0; j <= l.fluid_rows + 1; ++j) {
    for (int k = 0; k <= l.fluid_rows + 1; ++k) {
      const double y = (j - 0.5) * l.dx, z = (k - 0.5) * l.dx;
      const double want = p.max_velocity * 16.0 * y * z * (h - y) * (h - z) / (h * h * h * h);
      const double at[3] = {0.0, double(j), double(k)};
      EXPECT_NEAR(in.u[0] * in.profile(at), want, 1e-15);
      const bool wall = j == 0 || k == 0 || j == l.fluid_rows + 1 || k == l.fluid_rows + 1;
      EXPECT_EQ(s.geometry(0, j, k).kind, wall ? CellKind::solid : CellKind::velocity_boundary) << j << " " << k;
      if (!wall) {
        EXPECT_NEAR(s.initial(1, j, k).u[0], want, 1e-15) << j << " " << k;
      }
    }
  }
  // Half a voxel past the last fluid row the profile vanishes: the wall.
  const double wall[3] = {0.0, 0.5, 7.0};
  EXPECT_NEAR(in.profile(wall), 0.0, 1e-15);
  for (int k : {0, 1, l.fluid_rows / 2, l.fluid_rows}) {
    const CellSpec c = s.geometry(int(l.centre[0]), int(l.centre[1]), k);
    EXPECT_EQ(c.kind, CellKind::solid) << "layer " << k;
    EXPECT_EQ(c.id, k == 0 ? 0 : 3) << "layer " << k;
  }
}

// A cylinder through the middle of the square duct: mirror-symmetric in y and z, so neither lift
// nor a force along the axis at Re 20, while the drag is positive, with Bouzidi's walls and with
// immersed boundaries (a ring of markers per layer).
TEST(Cylinder, CentredCylinderInTheDuctHasNoLift) {
  const Variant v{"d3q19", "double", "soa", "trt", "ab"};
  if (!test::compiled(v)) GTEST_SKIP() << "d3q19/double/soa not compiled";
  for (bool immersed : {false, true}) {
    cases::CylinderParams p;
    p.benchmark = cases::CylinderCase::steady_3d1z;
    // D = 4 (a 100 x 16 x 16 duct) keeps the sanitizer build's run short; 4.1 D = 16.4 rounds to
    // 16 rows: the middle of those, not H / 2, is the mirror plane.
    p.diameter = 4;
    p.max_velocity = 0.1;
    p.wall = WallInterpolation::quadratic;
    p.immersed.enabled = immersed;
    p.centre_y = 0.5 * cases::cylinder_lattice(p).fluid_rows * cases::cylinder_lattice(p).dx;
    const auto l = cases::cylinder_lattice(p);
    const SolverSetup s = cases::cylinder_setup(p, v);
    if (immersed) {
      const int ring = int(std::ceil(2 * 3.14159265358979323846 * (l.radius - p.immersed.retraction)));
      EXPECT_EQ(s.immersed_body.markers.size(), std::size_t(ring * l.fluid_rows));
    }
    auto solver = make_solver(s);
    if (!immersed) {
      EXPECT_GT(solver->wall_links(), std::size_t(0));
    }
    solver->advance(200);
    const auto f = solver->body_force();
    const double scale = 2.0 / (l.mean_velocity * l.mean_velocity * p.diameter * l.span);
    std::printf("centred cylinder in the duct, %s: c_D %.5f, c_L %.3e, c_z %.3e after 200 steps\n",
                immersed ? "ib" : "bouzidi-quadratic", scale * f[0], scale * f[1], scale * f[2]);
    EXPECT_TRUE(std::isfinite(f[0]) && scale * f[0] > 1.0);
    EXPECT_LT(std::fabs(f[1]), 1e-9 * f[0]);
    EXPECT_LT(std::fabs(f[2]), 1e-9 * f[0]);
  }
}

TEST(Cylinder, RefusesWhatItCannotRun) {
  cases::CylinderParams p;
  p.diameter = 8;
  try {
    make_solver(cases::cylinder_setup(p, Variant{"d2q9", "double", "soa", "trt", "aa"}));
    FAIL() << "AA accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--pattern ab"), std::string::npos) << e.what();
  }
  p.diameter = 2;
  EXPECT_THROW(cases::cylinder_setup(p, Variant{}), Error);
  p.diameter = 8;
  p.max_velocity = 0.2;  // Mach sqrt(3) * 0.2 > 0.3
  EXPECT_THROW(cases::cylinder_setup(p, Variant{}), Error);
  // A 3D box of D = 300 would hold 1e10 voxels.
  p.max_velocity = 0.05;
  p.benchmark = cases::CylinderCase::steady_3d1z;
  p.diameter = 300;
  try {
    cases::cylinder_setup(p, Variant{"d3q19", "double", "soa", "trt", "ab"});
    FAIL() << "D = 300 accepted in 3D";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("300"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("256"), std::string::npos) << e.what();
  }
}

}  // namespace
