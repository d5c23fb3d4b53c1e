// The invariants of docs/validation.md: every layout gives bitwise the same fields; AA gives bitwise the same
// fields as AB (double and the FP16 storage precisions, every collision of the lattice), after
// odd and even step counts, with moving walls, periodic halos, a body force and regularized
// inlets/outlets; and mass is conserved on a periodic box.
#include "lbm_test_support.hpp"

#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

void expect_bitwise_equal(const test::HostMoments& a, const test::HostMoments& b, const std::string& what) {
  ASSERT_EQ(a.rho.size(), b.rho.size()) << what;
  for (std::size_t k = 0; k < a.rho.size(); ++k) {
    ASSERT_EQ(a.rho[k], b.rho[k]) << what << " rho at voxel " << k;
    for (int d = 0; d < 3; ++d) ASSERT_EQ(a.u[3 * k + d], b.u[3 * k + d]) << what << " u" << d << " at voxel " << k;
  }
}

/// A case that moves: cavity with its lid, a few steps (an odd count on purpose).
SolverSetup small_cavity(int dim, const std::string& lattice, const std::string& precision = "double") {
  cases::CavityParams p;
  p.dim = dim;
  p.n = dim == 3 ? 7 : 13;
  p.reynolds = 10;
  return cases::cavity_setup(p, Variant{lattice, precision, "soa", "bgk", "ab"});
}

/// The precisions of the bitwise tests: double, and the FP16 storage precisions, whose
/// decode/encode and weight shift must not depend on where a layout or pattern keeps a word.
constexpr const char* bitwise_precisions[] = {"fp16s", "fp16c", "double"};

/// The collisions variants.hpp defines for `lattice`: new collisions join the tests by
/// registering there.
std::vector<std::string> collisions_of(const std::string& lattice) {
  std::vector<std::string> out;
  for (const auto& c : Collisions::names())
    if (collision_defined_for(c, lattice)) out.push_back(c);
  return out;
}

TEST(LayoutInvariance, AllLayoutsBitwiseIdentical) {
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}, std::pair{3, "d3q27"}}) {
    for (const char* precision : bitwise_precisions) {
      for (const auto& collision : collisions_of(lattice)) {
        SolverSetup s = small_cavity(dim, lattice, precision);
        s.variant.collision = collision;
        if (!test::compiled(s.variant)) continue;
        const auto reference = test::run(s, 9);
        double max_speed = 0;
        for (double v : reference.u) max_speed = std::fmax(max_speed, std::fabs(v));
        ASSERT_GT(max_speed, 1e-4) << "the lid must have set the fluid moving";
        for (const char* layout : {"aos", "csoa", "disaggregated"}) {
          s.variant.layout = layout;
          if (!test::compiled(s.variant)) continue;
          expect_bitwise_equal(reference, test::run(s, 9),
                               std::string(lattice) + " " + precision + " " + collision + " " + layout);
        }
      }
    }
  }
}

TEST(PatternInvariance, AAEqualsABBitwise) {
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}, std::pair{3, "d3q27"}}) {
    for (const char* precision : bitwise_precisions) {
      for (const auto& collision : collisions_of(lattice)) {
        for (int steps : {8, 9}) {
          SolverSetup s = small_cavity(dim, lattice, precision);
          s.variant.collision = collision;
          s.variant.layout = "disaggregated";
          if (!test::compiled(s.variant)) continue;
          const auto ab = test::run(s, steps);
          s.variant.pattern = "aa";
          expect_bitwise_equal(
              ab, test::run(s, steps),
              std::string(lattice) + " " + precision + " " + collision + " steps " + std::to_string(steps));
        }
      }
    }
  }
}

TEST(PatternInvariance, AAEqualsABWithPeriodicHalosAndOpenBoundaries) {
  cases::TaylorGreenParams tg;
  tg.n = 16;
  cases::ChannelParams ch;
  ch.height = 8;
  ch.length = 12;
  ch.drive = cases::ChannelDrive::pressure_drop;
  cases::ChannelParams forced = ch;
  forced.drive = cases::ChannelDrive::body_force;
  for (const char* precision : bitwise_precisions) {
    for (const auto& collision : collisions_of("d2q9")) {
      const Variant v{"d2q9", precision, "soa", collision, "ab"};
      if (!test::compiled(v)) continue;
      for (SolverSetup s :
           {cases::taylor_green_setup(tg, v), cases::channel_setup(ch, v), cases::channel_setup(forced, v)}) {
        for (int steps : {10, 11}) {
          const auto ab = test::run(s, steps);
          s.variant.pattern = "aa";
          expect_bitwise_equal(ab, test::run(s, steps),
                               std::string(precision) + " " + collision + " steps " + std::to_string(steps));
          s.variant.pattern = "ab";
        }
      }
    }
  }
}

// The split of bulk and boundary voxels into two kernels is a schedule: one flagged kernel
// over every voxel (Schedule::fused) gives bitwise the same fields, with walls, a moving lid,
// regularized inlets/outlets and a body force, AB and AA, with the CPU's tiles and with a GPU's
// (whose AB bulk kernel also fills the solid voxels of its tiles, update_schedule.hpp).
TEST(ScheduleInvariance, SplitEqualsFusedBitwise) {
  cases::ChannelParams ch;
  ch.dim = 3;
  ch.height = 10;
  ch.length = 20;
  ch.depth = 6;
  ch.drive = cases::ChannelDrive::pressure_drop;
  cases::ChannelParams forced = ch;
  forced.drive = cases::ChannelDrive::body_force;
  const Variant d3q19{"d3q19", "double", "soa", "trt", "ab"};
  for (SolverSetup s : {small_cavity(3, "d3q19"), small_cavity(2, "d2q9"), cases::channel_setup(ch, d3q19),
                        cases::channel_setup(forced, d3q19)}) {
    for (const char* pattern : {"ab", "aa"}) {
      for (const char* layout : {"soa", "disaggregated"}) {
        s.variant.pattern = pattern;
        s.variant.layout = layout;
        s.schedule = Schedule::fused;
        s.schedule_tile = 0;
        const auto fused = test::run(s, 9);
        s.schedule = Schedule::split;
        // Tiles of 4 voxels (a GPU's for double) hold walls and fluid: AB then fills the walls' slots.
        for (const int tile : {0, 4}) {
          s.schedule_tile = tile;
          expect_bitwise_equal(
              test::run(s, 9), fused,
              s.variant.lattice.name() + " " + pattern + " " + layout + " tile " + std::to_string(tile));
        }
      }
    }
  }
}

TEST(Conservation, MassOnPeriodicBox) {
  cases::TaylorGreenParams tg;
  tg.n = 32;
  for (const char* pattern : {"ab", "aa"}) {
    auto solver =
        make_solver(cases::taylor_green_setup(tg, Variant{"d2q9", "double", "disaggregated", "trt", pattern}));
    const double m0 = solver->local_mass();
    solver->advance(1000);
    const double m1 = solver->local_mass();
    EXPECT_LE(std::fabs(m1 - m0) / m0, 1e-12) << pattern << ": mass " << m0 << " -> " << m1;
  }
}

TEST(BadInput, RefusedWithTheValue) {
  cases::CavityParams p;
  p.lid_velocity = 0.2;  // Mach 0.35
  try {
    cases::cavity_setup(p, {});
    FAIL() << "Mach 0.35 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Mach number"), std::string::npos) << e.what();
  }
  SolverSetup s = small_cavity(2, "d3q19");
  EXPECT_THROW(make_solver(s), Error);  // lattice does not match a 2D box
  s = small_cavity(2, "d2q9");
  EXPECT_THROW(s.variant.layout = "soa2", Error);  // refused where it is set, before any factory
}

}  // namespace
