// Validation of the porous case on the block-sparse grid: the permeability of a simple-cubic
// array of spheres, as Zick & Homsy's (1982) dimensionless drag K, over a range of solid
// fractions and cell edges, and its independence of the viscosity under TRT with a fixed magic
// parameter (Ginzburg, Verhaeghe & d'Humieres 2008: steady TRT solutions depend on Lambda, not
// on tau), which BGK with bounce-back lacks.
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/lbm/cases/porous.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

/// Zick & Homsy (1982) Table 2, simple cubic: solid fraction -> K (tests/validation/refdata).
std::map<double, double> zick_homsy_table() {
  std::ifstream in(KARMAN_ZICK_HOMSY_CSV);
  EXPECT_TRUE(in.good()) << "cannot read " << KARMAN_ZICK_HOMSY_CSV;
  std::map<double, double> table;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("solid_fraction", 0) == 0) continue;
    std::istringstream row(line);
    double c = 0, k = 0;
    char comma = 0;
    row >> c >> comma >> k;
    table[c] = k;
  }
  return table;
}

/// Zick & Homsy's K at solid fraction c: ln K interpolated quadratically in c through the three
/// nearest rows of the table. A voxelised sphere's fraction misses the target by up to a shell
/// of voxels (0.004 at a cell of 16), and K changes by 7 % per 0.01 there, so the measured K is
/// compared at the fraction it was measured at; the correction is local (a few table spacings
/// at most), so the interpolation adds far less error than the 3 % tolerance.
double reference_drag(double c) {
  const auto table = zick_homsy_table();
  std::vector<std::pair<double, double>> rows(table.begin(), table.end());
  EXPECT_GE(rows.size(), 3u);
  if (rows.size() < 3) return NAN;
  std::size_t first = 0;
  while (first + 3 < rows.size() && std::fabs(rows[first + 3].first - c) < std::fabs(rows[first].first - c)) ++first;
  double log_k = 0;
  for (std::size_t i = first; i < first + 3; ++i) {
    double weight = 1;
    for (std::size_t j = first; j < first + 3; ++j) {
      if (j != i) weight *= (c - rows[j].first) / (rows[i].first - rows[j].first);
    }
    log_k += weight * std::log(rows[i].second);
  }
  return std::exp(log_k);
}

/// One steady run of a one-cell periodic simple-cubic array.
struct Measurement {
  int cell = 0;
  double solid_fraction = 0;  ///< of the voxelised sphere
  double tau = 0;
  double drag = 0;  ///< K
  long steps = 0;
  double seconds = 0;
};

/// Runs the array of cell edge `cell` at solid fraction `c` (the voxelised sphere's, the radius
/// of equal volume entering K) to steady state: the superficial velocity approaches its limit
/// geometrically (the slowest Darcy mode), so the remaining change is estimated from the last
/// two changes (Aitken) and the run stops when it is below 2e-5 of the velocity.
Measurement measure(double c, int cell, double tau, const char* collision = "trt") {
  const auto t0 = std::chrono::steady_clock::now();
  const Extents box{cell, cell, cell};
  auto pack = geometry::simple_cubic_array_at_porosity(box, cell, 1.0 - c);
  const double c_voxel = 1.0 - pack.porosity;
  const auto image = std::make_shared<const geometry::VoxelImage>(std::move(pack.image));
  cases::PorousParams p;
  p.tau = tau;
  // Creeping flow: U_s stays below about 1e-5 at every solid fraction (Re far below 1e-2).
  p.force = 1e-5 / (double(cell) * cell);
  const SolverSetup setup = cases::porous_setup(image, p, Variant{"d3q19", "double", "csoa", collision, "ab"});
  auto solver = make_sparse_solver(setup);
  const int chunk = 50;
  double u = 0, du_previous = 0, remaining = INFINITY;
  long steps = 0;
  while (remaining > 2e-5 && steps < 200000) {
    solver->advance(chunk);
    steps += chunk;
    const double now = cases::velocity_sum(solver->moments());
    const double du = now - u;
    u = now;
    const double ratio = du_previous != 0 ? du / du_previous : 0.0;
    if (ratio > 0 && ratio < 1) remaining = std::fabs(du * ratio / (1 - ratio) / u);
    du_previous = du;
  }
  const auto flow = cases::darcy_flow(u, double(box.size()), double(image->fluid_voxels()), p);
  Measurement m;
  m.cell = cell;
  m.solid_fraction = c_voxel;
  m.tau = tau;
  m.drag = cases::simple_cubic_drag(flow, cell, c_voxel);
  m.steps = steps;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

bool compiled() { return is_sparse_compiled("d3q19", "double", "csoa"); }

// The typed table against an independent source: the Sangani & Acrivos series, valid for the
// dilute and moderate fractions, catches a mistyped row.
TEST(PorousPermeability, ReferenceTableAgreesWithSanganiAcrivosSeries) {
  const auto table = zick_homsy_table();
  ASSERT_EQ(table.size(), 7u);
  for (const auto& [c, k] : table) {
    if (c > 0.22) continue;
    EXPECT_NEAR(cases::sangani_acrivos_drag(c) / k, 1.0, 0.01) << "c = " << c;
  }
}

/// tau of the resolution sweep: TRT's steady state does not depend on it (the test below), and
/// the larger viscosity reaches it in fewer steps (the slowest Darcy mode decays at nu / k).
constexpr double sweep_tau = 3.0;

/// K at the cell edges `cells` for target solid fraction c; prints one table row per edge
/// (docs/validation.md) and checks the finest edge against Zick & Homsy within `tolerance`;
/// returns the errors.
std::vector<double> check_convergence(double c, std::vector<int> cells = {16, 24, 32}, double tolerance = 0.03) {
  std::vector<double> errors;
  if (!compiled()) {
    ADD_FAILURE() << "the sparse d3q19/double/csoa solver is not compiled";
    return errors;
  }
  std::printf("| c target | cell | c voxels | a (voxels) | K | K Zick & Homsy at c voxels | error | steps | time |\n");
  double error = NAN;
  for (int cell : cells) {
    const Measurement m = measure(c, cell, sweep_tau);
    const double reference = reference_drag(m.solid_fraction);
    error = m.drag / reference - 1.0;
    errors.push_back(error);
    std::printf("| %.4f | %d | %.5f | %.2f | %.4f | %.4f | %+.2f %% | %ld | %.1f s |\n", c, cell, m.solid_fraction,
                cases::sphere_radius(cell, m.solid_fraction), m.drag, reference, 100 * error, m.steps, m.seconds);
    std::fflush(stdout);
    EXPECT_LE(std::fabs(error), 0.06) << "c = " << c << ", cell " << cell;
  }
  EXPECT_LE(std::fabs(error), tolerance) << "c = " << c << " at the finest cell";
  return errors;
}

TEST(PorousPermeability, SimpleCubic0064) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  check_convergence(0.064);
}
TEST(PorousPermeability, SimpleCubic0125) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  check_convergence(0.125);
}
TEST(PorousPermeability, SimpleCubic0216) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  check_convergence(0.216);
}
// Dense arrays leave narrow gaps between the spheres (at c = 0.45 the gap is 0.05 of the cell,
// 1.5 voxels at a cell of 32), which need finer cells; their small permeability makes the steady
// state quick to reach, so a cell of 48 stays affordable. At c = 0.45 the gap is 2.3 voxels at a
// cell of 48 and the error, still falling with the cell, is 3.0 % there (docs/validation.md): the
// test holds it to 3.5 % and to a decrease from cell 24 on.
TEST(PorousPermeability, SimpleCubic0343) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  check_convergence(0.343, {16, 24, 32, 48});
}
TEST(PorousPermeability, SimpleCubic0450) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  const auto e = check_convergence(0.45, {16, 24, 32, 48}, 0.035);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_LT(std::fabs(e[2]), std::fabs(e[1]));
  EXPECT_LT(std::fabs(e[3]), std::fabs(e[2]));
}

// TRT with Lambda = 3/16: the same K at two viscosities (to the steady-state tolerance); BGK,
// whose bounce-back wall moves with tau, changes K by percents over the same range.
TEST(PorousPermeability, TrtMagicIsViscosityIndependent) {
  if (!compiled()) GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  const double c = 0.216;
  const int cell = 24;
  std::printf("| collision | c | cell | tau | K | time |\n");
  double drag[2][2];
  const char* collisions[2] = {"trt", "bgk"};
  const double taus[2] = {0.8, sweep_tau};
  for (int k = 0; k < 2; ++k) {
    for (int t = 0; t < 2; ++t) {
      const Measurement m = measure(c, cell, taus[t], collisions[k]);
      drag[k][t] = m.drag;
      std::printf("| %s | %.3f | %d | %.2f | %.5f | %.1f s |\n", collisions[k], c, cell, taus[t], m.drag, m.seconds);
      std::fflush(stdout);
    }
  }
  EXPECT_NEAR(drag[0][1] / drag[0][0], 1.0, 1e-3);
  EXPECT_GT(std::fabs(drag[1][1] / drag[1][0] - 1.0), 0.02);
}

}  // namespace
