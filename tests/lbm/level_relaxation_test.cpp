// The relaxation of a refined grid's levels (level_relaxation.hpp): the same fluid on every level
// under acoustic scaling.
#include <karman/lbm/collision.hpp>
#include <karman/lbm/level_relaxation.hpp>

#include "../common/expect_error.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace karman;
using namespace karman::lbm;

/// Lattice kinematic viscosity of relaxation rate omega: c_s^2 (1/omega - 1/2).
double viscosity(double omega) { return (1.0 / omega - 0.5) / 3.0; }

// The physical viscosity ν Δx² / Δt, the Mach number and the acceleration a Δx / Δt² are the
// same on every level (Δx and Δt halve per refinement), and TRT's Λ with them.
TEST(LevelRelaxation, TheSameFluidOnEveryLevel) {
  for (double omega : {1.95, 1.6, 1.0, 0.7}) {
    RelaxationParams coarse;
    coarse.omega = omega;
    coarse.omega_bulk = 1.2;
    coarse.omega_high = 1.0;
    coarse.trt_magic = 1.0 / 4;
    coarse.force[0] = 3e-6;
    coarse.force[2] = -1e-6;
    const RelaxationParams same = refined_relaxation(coarse, 0);
    EXPECT_EQ(same.omega, coarse.omega);
    EXPECT_EQ(same.force[0], coarse.force[0]);
    for (int k = 1; k <= 4; ++k) {
      const RelaxationParams fine = refined_relaxation(coarse, k);
      const double dx = std::ldexp(1.0, -k), dt = dx;  // in the coarsest level's units
      EXPECT_NEAR(viscosity(fine.omega) * dx * dx / dt, viscosity(omega), 1e-12 * viscosity(omega))
          << omega << " " << k;
      EXPECT_NEAR(viscosity(fine.omega_bulk) * dx * dx / dt, viscosity(coarse.omega_bulk), 1e-12) << k;
      EXPECT_EQ(fine.omega_high, coarse.omega_high);
      EXPECT_GT(fine.omega, 0.0);
      EXPECT_LT(fine.omega, 2.0);
      for (int a = 0; a < 3; ++a) EXPECT_DOUBLE_EQ(fine.force[a] * dx / (dt * dt), coarse.force[a]) << k;
      // TRT: Λ = (τ+ − ½)(τ− − ½) is kept, τ− following from the new τ+.
      const double tau_plus = 1.0 / fine.omega, tau_minus = 1.0 / TRT::antisymmetric_rate(fine);
      EXPECT_NEAR((tau_plus - 0.5) * (tau_minus - 0.5), coarse.trt_magic, 1e-12) << k;
      // Each refinement doubles τ − ½: τ_f = 2 τ_c − ½ level by level.
      const RelaxationParams above = refined_relaxation(coarse, k - 1);
      EXPECT_NEAR(1.0 / fine.omega, 2.0 / above.omega - 0.5, 1e-12) << k;
    }
  }
}

TEST(LevelRelaxation, RefusesBadInput) {
  RelaxationParams p;
  p.omega = 1.0;
  test::expect_error([&] { refined_relaxation(p, -1); }, {"-1 refinements", "0 or more"});
  p.omega = 2.0;
  test::expect_error([&] { refined_relaxation(p, 1); }, {"shear rate 2.0", "(0, 2)"});
  p.omega = 1.0;
  p.omega_bulk = 0.0;
  test::expect_error([&] { refined_relaxation(p, 1); }, {"bulk rate 0.0", "(0, 2)"});
}

/// A case gives its viscosity on the finest level: coarsened_relaxation finds the coarsest level's
/// rates that refined_relaxation takes back to them.
TEST(LevelRelaxation, CoarseningUndoesRefinement) {
  RelaxationParams fine;
  fine.omega = 1.9;
  fine.omega_bulk = 1.2;
  fine.force[0] = 1e-6;
  for (int k = 0; k <= 4; ++k) {
    const RelaxationParams coarse = coarsened_relaxation(fine, k);
    EXPECT_NEAR(1.0 / coarse.omega - 0.5, (1.0 / fine.omega - 0.5) / double(1 << k), 1e-14) << k;
    EXPECT_EQ(coarse.force[0], fine.force[0] * double(1 << k)) << k;
    const RelaxationParams back = refined_relaxation(coarse, k);
    EXPECT_NEAR(back.omega, fine.omega, 1e-13) << k;
    EXPECT_NEAR(back.omega_bulk, fine.omega_bulk, 1e-13) << k;
    EXPECT_EQ(back.force[0], fine.force[0]) << k;
  }
  test::expect_error([&] { coarsened_relaxation(fine, -2); }, {"-2 refinements", "0 or more"});
  fine.omega = 0.0;
  test::expect_error([&] { coarsened_relaxation(fine, 1); }, {"finest level's rate 0.0", "(0, 2)"});
}

}  // namespace
