// The cylinder benchmarks' figures (lbm/cases/cylinder_analysis.hpp) from force histories and
// fields made for each: a shedding wake's Strouhal number and maxima, a settling one, steady
// means, the pressure difference and recirculation length from known fields, and the
// oscillating cylinder's Morison fit.
#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/cases/cylinder_analysis.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace {

using namespace karman;
using namespace karman::lbm::cases;

constexpr double pi = 3.14159265358979323846;

/// `seconds` of benchmark time sampled every `dt`, drag and lift as functions of time.
ForceHistory history(double seconds, double dt, const std::function<double(double)>& drag,
                     const std::function<double(double)>& lift) {
  ForceHistory h;
  for (int k = 0; k * dt <= seconds; ++k) {
    const double t = k * dt;
    h.step.push_back(k);
    h.time.push_back(t);
    h.drag.push_back(drag(t));
    h.lift.push_back(lift(t));
  }
  return h;
}

/// Fields over the lattice of `p`: density rho(x) and velocity ux(x) along x, the same on every
/// row (every voxel fluid).
lbm::GlobalFields fields(const CylinderParams& p, const std::function<double(double)>& rho,
                         const std::function<double(double)>& ux) {
  const CylinderLattice l = cylinder_lattice(p);
  lbm::GlobalFields g;
  g.extents = Extents{l.nx, l.ny, l.nz};
  const auto n = std::size_t(g.extents.size());
  g.rho.resize(n);
  g.ux.resize(n);
  g.uy.assign(n, 0.0);
  g.uz.assign(n, 0.0);
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        g.rho[g.at(x, y, z)] = rho(x);
        g.ux[g.at(x, y, z)] = ux(x);
      }
  return g;
}

CylinderParams periodic_case() {
  CylinderParams p;
  p.benchmark = CylinderCase::periodic_2d2;
  p.diameter = 10;
  p.max_velocity = 0.1;
  return p;
}

TEST(CylinderAnalysis, MaximaOfASampledSine) {
  const ForceHistory h = history(
      3.0, 0.01, [](double) { return 0.0; }, [](double t) { return std::sin(2 * pi * t); });
  const auto peaks = maxima(h.time, h.lift, 0);
  ASSERT_EQ(peaks.size(), 3u);
  for (std::size_t k = 0; k < peaks.size(); ++k) {
    EXPECT_NEAR(peaks[k].first, 0.25 + double(k), 1e-5);
    EXPECT_NEAR(peaks[k].second, 1.0, 1e-4);
  }
  EXPECT_EQ(maxima(h.time, h.lift, 150).size(), 1u) << "maxima before `from` are left out";
}

// A wake that sheds at St = 0.3: lift at the shedding frequency, drag at twice it.
TEST(CylinderAnalysis, StrouhalNumberAndMaximaOfAShedding) {
  const CylinderParams p = periodic_case();
  const double st = 0.3, f = st * cylinder_benchmark(p.benchmark).mean_velocity / cylinder_diameter;
  const ForceHistory h = history(
      16.0, 0.005, [&](double t) { return 3.2 + 0.05 * std::sin(4 * pi * f * t); },
      [&](double t) { return 1.0 * std::sin(2 * pi * f * t); });
  const CylinderFigures fig = analyse_cylinder(p, h,
                                               fields(
                                                   p, [](double) { return 1.0; }, [](double) { return 0.1; }));
  ASSERT_EQ(fig.shedding, Shedding::periodic);
  EXPECT_NEAR(*fig.strouhal, st, 1e-4);
  EXPECT_NEAR(*fig.lift_max, 1.0, 1e-4);
  EXPECT_NEAR(*fig.drag_max, 3.25, 1e-4);
  EXPECT_GE(fig.periods, 10u);
  EXPECT_NEAR(fig.swing_ratio, 1.0, 0.01);
  EXPECT_DOUBLE_EQ(*fig.drag, h.drag.back()) << "a shedding run reports its last sample";
  EXPECT_DOUBLE_EQ(fig.pressure_difference, 0.0) << "uniform density";
  EXPECT_FALSE(fig.recirculation_length) << "a periodic case has no L_a";
}

// A drag swing that dies out is a settling wake, not shedding, whatever its maxima say.
TEST(CylinderAnalysis, ASettlingWakeIsNotShedding) {
  const CylinderParams p = periodic_case();
  const ForceHistory h = history(
      16.0, 0.005, [](double t) { return 3.0 + std::exp(-t) * std::sin(8 * pi * t); },
      [](double t) { return 0.01 * std::exp(-t) * std::sin(4 * pi * t); });
  const CylinderFigures fig = analyse_cylinder(p, h,
                                               fields(
                                                   p, [](double) { return 1.0; }, [](double) { return 0.1; }));
  EXPECT_EQ(fig.shedding, Shedding::settling);
  EXPECT_LT(fig.swing_ratio, 0.8);
  EXPECT_FALSE(fig.strouhal);
  EXPECT_NEAR(*fig.drag, 3.0, 1e-6) << "the mean over the last eighth";
}

// Steady forces are averaged over the last quarter; a drift between its halves is reported.
TEST(CylinderAnalysis, SteadyMeansAndDrift) {
  CylinderParams p;  // 2D-1
  const ForceHistory h = history(
      20.0, 0.02, [](double t) { return 5.58 + 0.005 * std::sin(2 * pi * t / 1.3); },
      [](double t) { return 0.0107 + 0.001 * std::cos(2 * pi * t / 1.3); });
  const CylinderFigures fig = analyse_cylinder(p, h,
                                               fields(
                                                   p, [](double) { return 1.0; }, [](double) { return 0.1; }));
  const std::size_t n = h.time.size();
  EXPECT_DOUBLE_EQ(*fig.averaged_from_time, h.time[n - n / 4]);
  EXPECT_NEAR(*fig.drag, 5.58, 2e-3);
  EXPECT_NEAR(*fig.lift, 0.0107, 2e-4);
  EXPECT_LT(*fig.drag_drift, 1e-3);
  EXPECT_FALSE(fig.recirculation_length) << "u_x > 0 behind the cylinder: no wake bubble";

  const ForceHistory drifting = history(
      20.0, 0.02, [](double t) { return 5.0 + 0.01 * t; }, [](double) { return 0.0; });
  EXPECT_GT(*analyse_cylinder(p, drifting,
                              fields(
                                  p, [](double) { return 1.0; }, [](double) { return 0.1; }))
                 .drag_drift,
            1e-3);
}

// The pressure difference from a density quadratic in x (extrapolated exactly to the surface)
// and the recirculation length from u_x linear in x (interpolated exactly to its zero).
TEST(CylinderAnalysis, PressureDifferenceAndRecirculationLengthFromKnownFields) {
  CylinderParams p;  // 2D-1
  const CylinderLattice l = cylinder_lattice(p);
  const auto rho = [](double x) { return 1.0 + 1e-3 * x + 1e-5 * x * x; };
  const double back = l.centre[0] + l.radius, bubble_end = back + 12.5;
  const lbm::GlobalFields g = fields(p, rho, [&](double x) { return 1e-3 * (x - bubble_end); });
  const ForceHistory h = history(
      0.5, 0.1, [](double) { return 5.58; }, [](double) { return 0.01; });
  const CylinderFigures fig = analyse_cylinder(p, h, g);
  const CylinderBenchmark bench = cylinder_benchmark(p.benchmark);
  const double scale = bench.mean_velocity * bench.mean_velocity / (l.mean_velocity * l.mean_velocity);
  EXPECT_NEAR(fig.pressure_difference, (rho(l.centre[0] - l.radius) - rho(back)) / 3.0 * scale, 1e-9);
  ASSERT_TRUE(fig.recirculation_length);
  EXPECT_NEAR(*fig.recirculation_length, 12.5 * l.dx, 1e-12);
  EXPECT_FALSE(fig.averaged_from_time) << "fewer than 8 samples: the last one";
  EXPECT_DOUBLE_EQ(*fig.drag, 5.58);
}

// An in-line force a cos(w t) + b sin(w t) + c gives C_d from b and C_m from a, fitted over the
// second half of the run.
TEST(CylinderAnalysis, MorisonFitRecoversTheForcesHarmonics) {
  OscillatingCylinderParams p;
  const OscillatingCylinderLattice l = oscillating_cylinder_lattice(p);
  const double a = -0.8, b = -0.05, c = 0.002;
  ForceHistory h;
  for (int k = 0; k <= 4000; ++k) {
    const double t = 0.01 * k * l.period;  // 40 periods, time in steps
    h.step.push_back(t);
    h.time.push_back(t);
    h.drag.push_back(a * std::cos(l.omega * t) + b * std::sin(l.omega * t) + c + (k < 2000 ? 0.3 : 0.0));
    h.lift.push_back(0.0);
  }
  const MorisonFit fit = morison_fit(p, l, h);
  EXPECT_EQ(fit.from, 2000u) << "the second half of the run";
  const double d = p.diameter, u = p.max_velocity, volume = 0.25 * pi * d * d;
  EXPECT_NEAR(fit.coefficients.drag, -3.0 * pi * b / (4.0 * d * u * u), 1e-9 * std::fabs(fit.coefficients.drag));
  EXPECT_NEAR(fit.coefficients.inertia, 1.0 - a / (volume * u * l.omega), 1e-9 * std::fabs(fit.coefficients.inertia));
}

}  // namespace
