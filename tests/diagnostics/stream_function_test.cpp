// Stream function from sampled analytic velocity fields: second-order convergence of ψ and of
// its extremum, sub-cell location of the extremum, the lid term, and rejected input.
#include <karman/core/error.hpp>
#include <karman/lbm/diagnostics/stream_function.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace {

using karman::lbm::compute_stream_function;
using karman::lbm::StreamFunctionResult;

constexpr double pi = 3.14159265358979323846;
using Field2 = std::function<double(double, double)>;
using HostArray = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// A velocity field sampled at the cell centres and its ψ, on the host.
struct Solved {
  StreamFunctionResult result;
  HostArray psi;
};

/// Samples (u, v)·scale at the cell centres of an nx × ny grid and computes ψ.
Solved solve(int nx, int ny, const Field2& u, const Field2& v, double scale = 1.0, double lid = 0.0) {
  Kokkos::View<double**, Kokkos::LayoutRight> ux("ux", ny, nx), uy("uy", ny, nx);
  const auto hx = Kokkos::create_mirror_view(ux), hy = Kokkos::create_mirror_view(uy);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const double x = (i + 0.5) / nx, y = (j + 0.5) / ny;
      hx(j, i) = scale * u(x, y);
      hy(j, i) = scale * v(x, y);
    }
  }
  Kokkos::deep_copy(ux, hx);
  Kokkos::deep_copy(uy, hy);
  Solved solved{compute_stream_function(ux, uy, scale, lid), {}};
  solved.psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solved.result.psi);
  return solved;
}

/// max |ψ_h − ψ_exact| over the cell centres.
double field_error(const HostArray& psi, const Field2& exact) {
  const int ny = int(psi.extent(0)), nx = int(psi.extent(1));
  double error = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) error = std::fmax(error, std::fabs(psi(j, i) - exact((i + 0.5) / nx, (j + 0.5) / ny)));
  return error;
}

void expect_converged(const StreamFunctionResult& r, int nx, int ny) {
  EXPECT_GT(r.iterations, 0);
  EXPECT_LE(r.iterations, 10 * (nx + ny) + 100);
  EXPECT_LE(r.residual, 1e-10);
}

// ψ = −sin²(πx) sin²(πy): a clockwise vortex like the cavity's, ψ = 0 and zero velocity on
// every wall (so the lid argument is 0), minimum −1 at (1/2, 1/2).
double psi_vortex(double x, double y) { return -std::pow(std::sin(pi * x) * std::sin(pi * y), 2); }
double u_vortex(double x, double y) { return -pi * std::pow(std::sin(pi * x), 2) * std::sin(2 * pi * y); }
double v_vortex(double x, double y) { return pi * std::sin(2 * pi * x) * std::pow(std::sin(pi * y), 2); }

TEST(StreamFunction, VortexConvergesAtSecondOrder) {
  double previous_field = 0, previous_min = 0;
  for (int n : {32, 64, 128}) {
    const Solved s = solve(n, n, u_vortex, v_vortex);
    expect_converged(s.result, n, n);
    const double e_field = field_error(s.psi, psi_vortex);
    const double e_min = std::fabs(s.result.minimum.value + 1.0);
    std::printf(
        "N = %3d: CG %4d iterations, residual %.2e, max |psi - exact| = %.3e, |psi_min + 1| = %.3e, "
        "min at (%.6f, %.6f)\n",
        n, s.result.iterations, s.result.residual, e_field, e_min, s.result.minimum.x, s.result.minimum.y);
    // h = 1/n: the extremum lies within a tenth of a cell of the exact centre.
    EXPECT_NEAR(s.result.minimum.x, 0.5, 0.1 / n);
    EXPECT_NEAR(s.result.minimum.y, 0.5, 0.1 / n);
    if (previous_field > 0) {
      EXPECT_NEAR(previous_field / e_field, 4.0, 0.4) << "field error ratio at N = " << n;
      EXPECT_NEAR(previous_min / e_min, 4.0, 0.4) << "psi_min error ratio at N = " << n;
    }
    previous_field = e_field;
    previous_min = e_min;
  }
}

// ψ = −x sin²(πx) sin²(πy) on a non-square grid: the minimum sits off-centre in x, at the root
// of tan(πx) = −2πx, and away from any cell centre or face, so the parabola fit is exercised
// and an x/y mix-up in the indexing shows.
double psi_skewed(double x, double y) { return x * psi_vortex(x, y); }
double u_skewed(double x, double y) { return x * u_vortex(x, y); }
double v_skewed(double x, double y) {
  return (std::pow(std::sin(pi * x), 2) + pi * x * std::sin(2 * pi * x)) * std::pow(std::sin(pi * y), 2);
}

TEST(StreamFunction, SkewedVortexCentreToSubCellAccuracy) {
  double x_star = 0.65;  // Newton on g(x) = sin(πx) + 2πx cos(πx) = 0
  for (int k = 0; k < 50; ++k) {
    const double g = std::sin(pi * x_star) + 2 * pi * x_star * std::cos(pi * x_star);
    const double dg = 3 * pi * std::cos(pi * x_star) - 2 * pi * pi * x_star * std::sin(pi * x_star);
    x_star -= g / dg;
  }
  const double psi_star = psi_skewed(x_star, 0.5);
  const int nx = 45, ny = 38;
  const Solved s = solve(nx, ny, u_skewed, v_skewed);
  expect_converged(s.result, nx, ny);
  std::printf("x* = %.6f, psi* = %.6f; found %.6f at (%.6f, %.6f); max field error %.3e\n", x_star, psi_star,
              s.result.minimum.value, s.result.minimum.x, s.result.minimum.y, field_error(s.psi, psi_skewed));
  EXPECT_NEAR(s.result.minimum.x, x_star, 0.1 / nx);
  EXPECT_NEAR(s.result.minimum.y, 0.5, 0.1 / ny);
  EXPECT_NEAR(s.result.minimum.value, psi_star, 3e-3);  // about 4 h², as for the symmetric vortex
  EXPECT_LT(field_error(s.psi, psi_skewed), 3e-3);
  // ψ ≤ 0 everywhere: the largest value is 0 to within the discretisation error.
  EXPECT_NEAR(s.result.maximum.value, 0.0, 1e-3);
}

// −∇²w = 1 on the unit square, w = 0 on the boundary (the torsion problem), by the single
// series w = x(1−x)/2 − Σ_{odd m} 4/(π³m³) sin(mπx) cosh(mπ(y−½))/cosh(mπ/2).
double torsion(double x, double y) {
  double w = 0.5 * x * (1 - x);
  for (int m = 1; m < 4000; m += 2) {
    const double a = m * pi * std::fabs(y - 0.5), b = m * pi * 0.5;
    const double cosh_ratio = std::exp(a - b) * (1 + std::exp(-2 * a)) / (1 + std::exp(-2 * b));
    w -= 4 / (pi * pi * pi * m * m * m) * std::sin(m * pi * x) * cosh_ratio;
  }
  return w;
}

// Plane shear u = U y, v = 0 with the lid moving at U: the discrete vorticity is −1 in every
// cell only if the lid velocity enters the top row, and ψ = 0 on the walls then makes ψ = −w.
// The tangential wall velocities are consistent (0 at y = 0, U at y = 1, v = 0 on the sides);
// u on the side walls is normal to them and plays no part.
TEST(StreamFunction, LidEntersThroughTopRowVorticity) {
  const double scale = 0.05;  // a lattice-unit lid velocity; ψ comes out per U L
  const Field2 shear_u = [](double, double y) { return y; };
  const Field2 zero = [](double, double) { return 0.0; };
  const Field2 exact = [](double x, double y) { return -torsion(x, y); };
  const double psi_centre = -torsion(0.5, 0.5);
  EXPECT_NEAR(psi_centre, -0.0736713532814, 1e-8);  // the classic torsion constant
  double previous_field = 0;
  for (int n : {16, 32, 64}) {
    const Solved s = solve(n, n, shear_u, zero, scale, 1.0);
    expect_converged(s.result, n, n);
    const double e_field = field_error(s.psi, exact);
    std::printf("N = %3d: max |psi + w| = %.3e, psi_min = %.7f at (%.4f, %.4f)\n", n, e_field, s.result.minimum.value,
                s.result.minimum.x, s.result.minimum.y);
    EXPECT_NEAR(s.result.minimum.value, psi_centre, 0.1 / (n * n));  // measured 0.067 h²
    EXPECT_NEAR(s.result.minimum.x, 0.5, 0.1 / n);
    EXPECT_NEAR(s.result.minimum.y, 0.5, 0.1 / n);
    if (previous_field > 0) {
      EXPECT_NEAR(previous_field / e_field, 4.0, 0.3) << "field error ratio at N = " << n;
    }
    previous_field = e_field;
  }
  // Without the lid term the top row sees a spurious vortex sheet and ψ is far off.
  const Solved no_lid = solve(32, 32, shear_u, zero, scale, 0.0);
  EXPECT_GT(field_error(no_lid.psi, exact), 1e-2);
}

TEST(StreamFunction, ZeroVelocityGivesZeroPsi) {
  const Field2 zero = [](double, double) { return 0.0; };
  const Solved s = solve(8, 6, zero, zero);
  EXPECT_EQ(s.result.iterations, 0);
  EXPECT_EQ(s.result.residual, 0.0);
  EXPECT_EQ(field_error(s.psi, zero), 0.0);
}

StreamFunctionResult call(int ux_ny, int ux_nx, int uy_ny, int uy_nx, double scale, double fill = 0.0) {
  Kokkos::View<double**, Kokkos::LayoutRight> ux("ux", ux_ny, ux_nx), uy("uy", uy_ny, uy_nx);
  Kokkos::deep_copy(ux, fill);
  return compute_stream_function(ux, uy, scale);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const karman::Error& e) {
    return e.what();
  }
  return "no karman::Error thrown";
}

TEST(StreamFunction, RejectsBadInput) {
  const std::string shapes = error_of([] { call(8, 6, 8, 7, 1.0); });
  EXPECT_NE(shapes.find("(8, 6)"), std::string::npos) << shapes;
  EXPECT_NE(shapes.find("(8, 7)"), std::string::npos) << shapes;
  EXPECT_NE(error_of([] { call(8, 1, 8, 1, 1.0); }).find("nx = 1 out of range [2, 16384]"), std::string::npos);
  EXPECT_NE(error_of([] { call(8, 8, 8, 8, 0.0); }).find("velocity_scale = 0"), std::string::npos);
  EXPECT_NE(error_of([] { call(8, 8, 8, 8, 1.0, std::nan("")); }).find("NaN"), std::string::npos);
}

}  // namespace
