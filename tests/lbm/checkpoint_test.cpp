// FlowSolver::save_populations / load_populations, the solver side of checkpoints:
// a solver loaded with another's populations and step count continues bitwise as the original,
// whatever the layout and pattern of either (the buffer is layout- and pattern-independent), in
// float, double and the FP16 storage precisions (whose buffer holds the 16-bit words of f - w);
// AA refuses odd step counts, where part of its state waits in the halo. The flag words a
// checkpoint stores beside them mark the walls and are the same for every layout and pattern.
#include "lbm_test_support.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

SolverSetup cavity(int dim, const std::string& lattice, const std::string& precision) {
  cases::CavityParams p;
  p.dim = dim;
  p.n = dim == 3 ? 7 : 13;
  p.reynolds = 10;
  return cases::cavity_setup(p, Variant{lattice, precision, "soa", "bgk", "ab"});
}

std::vector<std::byte> saved(FlowSolver& solver) {
  std::vector<std::byte> buffer(std::size_t(solver.owned_box().size()) * std::size_t(solver.populations()) *
                                std::size_t(solver.population_size()));
  solver.save_populations(buffer.data());
  return buffer;
}

void expect_same_moments(FlowSolver& a, FlowSolver& b, const std::string& what) {
  const auto ma = test::host_moments(a), mb = test::host_moments(b);
  ASSERT_EQ(ma.rho.size(), mb.rho.size()) << what;
  for (std::size_t k = 0; k < ma.rho.size(); ++k) {
    ASSERT_EQ(ma.rho[k], mb.rho[k]) << what << " rho at voxel " << k;
    for (int d = 0; d < 3; ++d) ASSERT_EQ(ma.u[3 * k + d], mb.u[3 * k + d]) << what << " u" << d << " at " << k;
  }
}

TEST(Checkpoint, LoadedSolverContinuesBitwiseAcrossLayoutsAndPatterns) {
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}, std::pair{3, "d3q27"}}) {
    for (const char* precision : {"float", "fp16s", "fp16c", "double"}) {
      for (const char* from_pattern : {"ab", "aa"}) {
        SolverSetup from = cavity(dim, lattice, precision);
        from.variant.pattern = from_pattern;
        if (!test::compiled(from.variant)) continue;
        auto original = make_solver(from);
        original->advance(8);
        const std::vector<std::byte> buffer = saved(*original);
        EXPECT_EQ(buffer.size(), std::size_t(original->owned_box().size()) * std::size_t(original->populations()) *
                                     (std::string(precision) == "double"  ? 8u
                                      : std::string(precision) == "float" ? 4u
                                                                          : 2u));
        original->advance(5);
        for (const char* layout : {"aos", "soa", "csoa", "disaggregated"}) {
          for (const char* to_pattern : {"ab", "aa"}) {
            SolverSetup to = from;
            to.variant.layout = layout;
            to.variant.pattern = to_pattern;
            if (!test::compiled(to.variant)) continue;
            auto restored = make_solver(to);
            restored->load_populations(buffer.data(), 8);
            ASSERT_EQ(restored->steps(), 8);
            restored->advance(5);
            expect_same_moments(
                *original, *restored,
                std::string(lattice) + " " + precision + " " + from_pattern + " -> " + layout + " " + to_pattern);
          }
        }
      }
    }
  }
}

TEST(Checkpoint, AAStateIsCompleteOnlyAfterEvenSteps) {
  SolverSetup s = cavity(2, "d2q9", "double");
  s.variant.pattern = "aa";
  auto solver = make_solver(s);
  solver->advance(3);
  EXPECT_FALSE(solver->populations_complete());
  std::vector<std::byte> buffer(std::size_t(solver->owned_box().size()) * 9 * 8);
  EXPECT_THROW(solver->save_populations(buffer.data()), Error);
  solver->advance(1);
  EXPECT_TRUE(solver->populations_complete());
  solver->save_populations(buffer.data());
  EXPECT_THROW(solver->load_populations(buffer.data(), 5), Error);
  s.variant.pattern = "ab";
  auto ab = make_solver(s);
  ab->advance(3);
  EXPECT_TRUE(ab->populations_complete());
}

TEST(Checkpoint, SavedFlagsMarkTheWallsWhateverTheLayoutAndPattern) {
  SolverSetup s = cavity(3, "d3q19", "float");
  if (!test::compiled(s.variant)) GTEST_SKIP() << "d3q19/float/soa is not compiled";
  auto reference = make_solver(s);
  const std::size_t voxels = std::size_t(reference->owned_box().size());
  std::vector<flag_t> expected(voxels);
  reference->save_flags(expected.data());
  // The 7^3 cavity inside a 9^3 box: one wall voxel thick on every side, the lid (its own
  // boundary id) on top. Walls at rest are served through slots (wall_slots.hpp), so only the
  // 7 x 7 fluid voxels under the moving lid have blocked bits.
  const int n = 9;
  ASSERT_EQ(voxels, std::size_t(n * n * n));
  std::size_t solid = 0, lid = 0, blocked_fluid = 0;
  for (const flag_t f : expected) {
    if (flags::kind(f) == CellKind::solid) {
      ++solid;
      if (flags::id(f) != 0) ++lid;
    } else if (flags::mask(f) != 0) {
      ++blocked_fluid;
    }
  }
  EXPECT_EQ(solid, std::size_t(n * n * n - 7 * 7 * 7));
  EXPECT_GT(lid, 0u);
  EXPECT_EQ(blocked_fluid, std::size_t(7 * 7));
  for (const char* layout : {"aos", "csoa", "disaggregated"}) {
    for (const char* pattern : {"ab", "aa"}) {
      SolverSetup other = s;
      other.variant.layout = layout;
      other.variant.pattern = pattern;
      if (!test::compiled(other.variant)) continue;
      auto solver = make_solver(other);
      solver->advance(2);
      std::vector<flag_t> flags(voxels);
      solver->save_flags(flags.data());
      EXPECT_EQ(flags, expected) << layout << " " << pattern;
    }
  }
}

}  // namespace
