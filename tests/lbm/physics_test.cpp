// Validation against analytic solutions (shared/refdata/analytic.md): Taylor-Green decay
// rate, body-force Poiseuille profile and its second-order convergence, and a pressure-driven
// channel through the regularized inlet/outlet; Taylor-Green and Poiseuille also with float
// and the FP16 storage precisions (Lehmann et al. 2022), whose tolerances docs/validation.md
// explains.
#include "lbm_test_support.hpp"

#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

using namespace karman;
using namespace karman::lbm;

double kinetic_energy(const test::HostMoments& m) {
  double e = 0;
  for (double v : m.u) e += v * v;
  return e;
}

// The velocity amplitude decays as exp(-2 nu k^2 t): fit the rate from the kinetic energy
// (which decays at twice it) between two times, after the initial pressure transient.
// Returns the relative error of the rate.
double taylor_green_rate_error(const char* collision, const char* precision) {
  cases::TaylorGreenParams p;
  p.n = 64;
  p.reynolds = 40;
  auto solver = make_solver(cases::taylor_green_setup(p, Variant{"d2q9", precision, "soa", collision, "aa"}));
  solver->advance(200);
  const double e0 = kinetic_energy(test::host_moments(*solver));
  const int span = 1000;
  solver->advance(span);
  const double e1 = kinetic_energy(test::host_moments(*solver));
  const double rate = -0.5 * std::log(e1 / e0) / span;
  const double expected = cases::decay_rate(p);
  std::printf("taylor-green %s %s: decay rate %.6e, analytic %.6e, relative error %.2e\n", collision, precision, rate,
              expected, rate / expected - 1.0);
  return rate / expected - 1.0;
}

TEST(TaylorGreen, DecayRateWithinOnePercent) {
  for (const char* collision : {"bgk", "trt", "mrt", "cm"})
    EXPECT_NEAR(taylor_green_rate_error(collision, "double"), 0.0, 0.01) << collision;
}

// Float and the FP16 storage precisions keep the 1 % of double, for TRT and the moment-space
// collisions (whose arithmetic is FP32 for FP16 storage): the decaying vortex's
// deviations from the weights (|f - w| up to about w U0 / cs^2) keep 11 or 12 significant bits.
TEST(TaylorGreen, DecayRateInStoragePrecisions) {
  for (const char* collision : {"trt", "mrt", "cm"})
    for (const char* precision : {"float", "fp16c", "fp16s"})
      EXPECT_NEAR(taylor_green_rate_error(collision, precision), 0.0, 0.01) << collision << " " << precision;
}

double poiseuille_l2_error(int height, const char* collision, int steps, const char* precision = "double") {
  cases::ChannelParams p;
  p.height = height;
  p.length = 4;
  p.max_velocity = 0.02;
  p.reynolds = p.max_velocity * height / 0.1;  // nu = 0.1 at every resolution
  auto solver = make_solver(cases::channel_setup(p, Variant{"d2q9", precision, "soa", collision, "aa"}));
  solver->advance(steps);
  const auto m = test::host_moments(*solver);
  double num = 0, den = 0;
  for (int j = 1; j <= height; ++j) {
    const double exact = cases::poiseuille_velocity(p, j), got = m.u[3 * std::size_t(j * p.length + 1)];
    num += (got - exact) * (got - exact);
    den += exact * exact;
  }
  return std::sqrt(num / den);
}

TEST(Poiseuille, BodyForceProfileAndSecondOrderConvergence) {
  // Steady after many diffusion times H^2 / nu.
  const double e8 = poiseuille_l2_error(8, "bgk", 4000);
  const double e16 = poiseuille_l2_error(16, "bgk", 16000);
  const double e32 = poiseuille_l2_error(32, "bgk", 64000);
  std::printf("poiseuille bgk: L2 error H=8 %.3e, H=16 %.3e, H=32 %.3e\n", e8, e16, e32);
  EXPECT_LE(e32, 1e-3);
  const double order1 = std::log2(e8 / e16), order2 = std::log2(e16 / e32);
  EXPECT_NEAR(order1, 2.0, 0.2) << "errors " << e8 << " " << e16 << " " << e32;
  EXPECT_NEAR(order2, 2.0, 0.2) << "errors " << e8 << " " << e16 << " " << e32;
  // TRT with Lambda = 3/16 places the wall exactly: the parabola is reproduced to round-off.
  const double trt = poiseuille_l2_error(16, "trt", 16000);
  std::printf("poiseuille trt: L2 error H=16 %.3e\n", trt);
  EXPECT_LE(trt, 1e-8);
}

// TRT reproduces the parabola to round-off, so what is left is the storage's rounding. The body
// force adds about 3 w g = 2e-5 w to a population per step, close to the rounding step of a
// 16-bit deviation (2^-11 or 2^-12 relative): FP16 loses accuracy here, FP16C, with one more
// mantissa bit, about 3x less than FP16S.
// Tolerances are twice the errors measured in docs/validation.md.
TEST(Poiseuille, ProfileInStoragePrecisions) {
  for (auto [precision, tolerance] : {std::pair{"float", 3e-5}, std::pair{"fp16c", 2.5e-2}, std::pair{"fp16s", 7e-2}}) {
    const double bgk = poiseuille_l2_error(16, "bgk", 16000, precision);
    const double trt = poiseuille_l2_error(16, "trt", 16000, precision);
    std::printf("poiseuille %s: L2 error H=16 bgk %.3e, trt %.3e\n", precision, bgk, trt);
    EXPECT_LE(trt, tolerance) << precision;
  }
}

TEST(Channel, PressureDropThroughRegularizedBoundaries) {
  cases::ChannelParams p;
  p.height = 16;
  p.length = 48;
  p.max_velocity = 0.02;
  p.reynolds = p.max_velocity * p.height / 0.1;
  p.drive = cases::ChannelDrive::pressure_drop;
  auto solver = make_solver(cases::channel_setup(p, Variant{"d2q9", "double", "soa", "trt", "ab"}));
  solver->advance(20000);
  const auto m = test::host_moments(*solver);
  double num = 0, den = 0;
  const int x = p.length / 2;
  for (int j = 1; j <= p.height; ++j) {
    const double exact = cases::poiseuille_velocity(p, j), got = m.u[3 * std::size_t(j * p.length + x)];
    num += (got - exact) * (got - exact);
    den += exact * exact;
    EXPECT_NEAR(m.u[3 * std::size_t(j * p.length + x) + 1], 0.0, 1e-4 * p.max_velocity);
  }
  // Weak compressibility: the density varies by ~1% along the channel.
  std::printf("pressure-driven channel: L2 error %.3e\n", std::sqrt(num / den));
  EXPECT_LE(std::sqrt(num / den), 0.02);
}

}  // namespace
