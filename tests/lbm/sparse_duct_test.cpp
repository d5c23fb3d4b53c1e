// Validation on the block-sparse grid: body-force-driven Poiseuille flow in a square duct
// against its series solution (White, Viscous Fluid Flow, 3rd ed., Eq. 3-48), with
// half-way bounce-back on the four walls and second-order convergence in the duct side.
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <utility>

namespace {

using namespace karman;
using namespace karman::lbm;

constexpr double pi = 3.14159265358979323846;

/// Axial velocity at (y, z), each measured from the duct's axis, in a square duct of side a
/// driven by the body force F with kinematic viscosity nu:
///   u = 4 F a^2 / (nu pi^3) sum_{i odd} (-1)^((i-1)/2) / i^3 [1 - cosh(i pi z / a) / cosh(i pi / 2)] cos(i pi y / a).
/// The cosh ratio is written with decaying exponentials so that no term overflows.
double duct_velocity(double y, double z, double a, double force, double nu) {
  double sum = 0;
  for (int i = 1; i <= 1001; i += 2) {
    const double k = i * pi / a, t = std::fabs(z);
    const double ratio = std::exp(k * t - i * pi / 2) * (1 + std::exp(-2 * k * t)) / (1 + std::exp(-i * pi));
    sum += ((i / 2) % 2 == 0 ? 1.0 : -1.0) / (double(i) * i * i) * (1 - ratio) * std::cos(k * y);
  }
  return 4 * force * a * a / (nu * pi * pi * pi) * sum;
}

/// Relative L2 error of the steady axial velocity over the duct's cross-section, side a
/// fluid voxels; the walls lie half-way between the wall voxels and the first fluid voxels.
double duct_l2_error(int a, const char* collision) {
  const double nu = 0.1, u_max = 0.01;
  // The centre-line velocity of a square duct is about 0.0737 F a^2 / nu.
  const double force = u_max * nu / (0.0737 * a * a);
  SolverSetup s;
  s.variant = Variant{"d3q19", "double", "csoa", collision, "aa"};
  s.global = {4, a + 2, a + 2};
  s.periodic = {true, false, false};
  s.relaxation.omega = 1.0 / (3 * nu + 0.5);
  s.relaxation.force[0] = force;
  s.geometry = [a](int, int y, int z) {
    return (y == 0 || y == a + 1 || z == 0 || z == a + 1) ? CellSpec{CellKind::solid, 0} : CellSpec{};
  };
  auto solver = make_sparse_solver(s);
  // The slowest mode decays at 2 pi^2 nu / a^2: run until it is down by e^-20.
  const int steps = 2 * int(std::ceil(10 * a * a / (2 * pi * pi * nu)));
  solver->advance(steps);
  const auto m = solver->moments();  // in box order (one rank)
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  double num = 0, den = 0;
  for (int z = 1; z <= a; ++z) {
    for (int y = 1; y <= a; ++y) {
      const double exact = duct_velocity(y - 0.5 * (a + 1), z - 0.5 * (a + 1), a, force, nu);
      const double got = u(s.global.index(1, y, z), 0);
      num += (got - exact) * (got - exact);
      den += exact * exact;
    }
  }
  return std::sqrt(num / den);
}

// Double only: in float the populations' rounding drifts the profile by a few 1e-4 over the
// 10^4 steps the finest duct needs, as large as the discretisation error there.
// Tolerances are twice the errors measured (docs/validation.md).
TEST(SparseDuct, SeriesSolutionAndSecondOrderConvergence) {
  if (!is_sparse_compiled("d3q19", "double", "csoa"))
    GTEST_SKIP() << "the sparse d3q19/double/csoa solver is not compiled";
  for (auto [collision, tolerance] : {std::pair{"bgk", 2e-3}, std::pair{"trt", 4.5e-4}}) {
    const double e8 = duct_l2_error(8, collision);
    const double e16 = duct_l2_error(16, collision);
    const double e32 = duct_l2_error(32, collision);
    std::printf("square duct %s: L2 error a=8 %.3e, a=16 %.3e, a=32 %.3e\n", collision, e8, e16, e32);
    EXPECT_LE(e32, tolerance) << collision;
    EXPECT_NEAR(std::log2(e8 / e16), 2.0, 0.3) << collision << " errors " << e8 << " " << e16 << " " << e32;
    EXPECT_NEAR(std::log2(e16 / e32), 2.0, 0.3) << collision << " errors " << e8 << " " << e16 << " " << e32;
  }
}

}  // namespace
