// The moment-space collisions (MRT on raw moments, CM on central moments): their transforms
// are exact inverses and take the moments they claim to, equal rates reduce them to BGK, and
// they conserve mass and momentum, with and without the Guo force, at every arithmetic type.
#include <karman/lbm/collision.hpp>
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/stream_collide.hpp>
#include <karman/lbm/variants.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace {

using namespace karman;
using namespace karman::lbm;

/// Populations near the equilibrium of (rho0, u0): every moment has a non-equilibrium part.
template <class L, class T>
void perturbed_equilibrium(T (&f)[L::Q], double rho0, const double (&u0)[3], unsigned seed, double amplitude = 0.05) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> noise(-amplitude, amplitude);
  const double u[3] = {u0[0], u0[1], L::D == 3 ? u0[2] : 0.0};
  for (int i = 0; i < L::Q; ++i) f[i] = T(equilibrium<L>(i, rho0, u) * (1 + noise(gen)));
}

template <class L>
double monomial(int i, int a, int b, int c, const double (&u)[3]) {
  return std::pow(L::c(i, 0) - u[0], a) * std::pow(L::c(i, 1) - u[1], b) * std::pow(L::c(i, 2) - u[2], c);
}

template <class L>
void expect_raw_inverse() {
  using M = RawMoments<L>;
  for (int i = 0; i < L::Q; ++i) {
    for (int j = 0; j < L::Q; ++j) {
      double product = 0;
      for (int k = 0; k < L::Q; ++k) product += M::inverse(i, k) * M::matrix(k, j);
      EXPECT_NEAR(product, i == j ? 1.0 : 0.0, 1e-15) << L::name << " (M^-1 M)(" << i << ", " << j << ")";
    }
  }
  double g[L::Q], m[L::Q], back[L::Q] = {};
  const double u0[3] = {0.03, -0.02, 0.01};
  perturbed_equilibrium<L>(g, 1.0, u0, 1);
  M::forward(g, m);
  for (int k = 0; k < L::Q; ++k) {
    double direct = 0;
    const double zero[3] = {0, 0, 0};
    for (int i = 0; i < L::Q; ++i)
      direct += g[i] * monomial<L>(i, M::exponent(k, 0), M::exponent(k, 1), M::exponent(k, 2), zero);
    EXPECT_NEAR(m[k], direct, 1e-15) << L::name << " raw moment " << k;
  }
  M::add_backward(m, back);
  for (int i = 0; i < L::Q; ++i) EXPECT_NEAR(back[i], g[i], 1e-15) << L::name << " population " << i;
}

TEST(MomentTransforms, RawMomentsInvertExactly) {
  expect_raw_inverse<D2Q9>();
  expect_raw_inverse<D3Q19>();
}

template <class L>
void expect_central_inverse() {
  using K = CentralMoments<L>;
  const double u[3] = {0.08, -0.05, L::D == 3 ? 0.06 : 0.0};
  double f[L::Q], k[L::Q];
  perturbed_equilibrium<L>(f, 1.02, u, 2);
  for (int q = 0; q < L::Q; ++q) k[q] = f[q];
  K::forward(k, u);
  for (int s = 0; s < L::Q; ++s) {
    double direct = 0;
    for (int i = 0; i < L::Q; ++i)
      direct += f[i] * monomial<L>(i, K::exponent(s, 0), K::exponent(s, 1), K::exponent(s, 2), u);
    EXPECT_NEAR(k[s], direct, 1e-15) << L::name << " central moment " << s;
  }
  K::backward(k, u);
  for (int i = 0; i < L::Q; ++i) EXPECT_NEAR(k[i], f[i], 1e-15) << L::name << " population " << i;
}

TEST(MomentTransforms, CentralMomentsInvertExactly) {
  expect_central_inverse<D2Q9>();
  expect_central_inverse<D3Q27>();
}

/// Density, velocity (Guo's half-force shift included) and the populations after one collision.
template <class Collision, class L, class T, bool Forced>
void collide_once(T (&f)[L::Q], const T (&force)[3], const CollisionRates<T>& rates) {
  T rho, u[3];
  moments<L, T, Forced>(f, force, rho, u);
  Collision::template collide<L, T, Forced>(f, rho, u, force, rates);
}

template <class Collision, class L, bool Forced>
double max_difference_to_bgk(double velocity, double noise = 0.05) {
  double a[L::Q], b[L::Q];
  const double u0[3] = {velocity, -0.7 * velocity, 0.4 * velocity};
  perturbed_equilibrium<L>(a, 1.01, u0, 3, noise);
  for (int i = 0; i < L::Q; ++i) b[i] = a[i];
  const double force[3] = {1e-4, -2e-4, L::D == 3 ? 1.5e-4 : 0.0};
  const double omega = 1.0 / 0.53;
  collide_once<Collision, L, double, Forced>(a, force, {omega, omega, omega, omega});
  collide_once<BGK, L, double, Forced>(b, force, {omega, omega, omega, omega});
  double diff = 0;
  for (int i = 0; i < L::Q; ++i) diff = std::fmax(diff, std::fabs(a[i] - b[i]));
  return diff;
}

// MRT relaxes raw moments towards those of equilibrium.hpp's f^eq: with one rate it is BGK.
TEST(MomentCollisions, MrtWithEqualRatesIsBgk) {
  EXPECT_LE((max_difference_to_bgk<MRT, D2Q9, false>(0.1)), 1e-15);
  EXPECT_LE((max_difference_to_bgk<MRT, D2Q9, true>(0.1)), 1e-15);
  EXPECT_LE((max_difference_to_bgk<MRT, D3Q19, false>(0.1)), 1e-15);
  EXPECT_LE((max_difference_to_bgk<MRT, D3Q19, true>(0.1)), 1e-15);
}

/// BGK towards the factorised equilibrium rho prod_axis phi(c, u), phi(0) = 2/3 - u^2,
/// phi(+-1) = (1/3 + u^2 +- u) / 2, whose central moments are rho prod {1, 0, 1/3}: what CM
/// relaxes to, written independently of the transforms.
template <class L, bool Forced>
void factorised_bgk(double (&f)[L::Q], const double (&force)[3], double omega) {
  double rho, u[3];
  moments<L, double, Forced>(f, force, rho, u);
  for (int i = 0; i < L::Q; ++i) {
    double feq = rho;
    for (int axis = 0; axis < L::D; ++axis) {
      const int c = L::c(i, axis);
      const double v = u[axis];
      feq *= c == 0 ? 2.0 / 3.0 - v * v : 0.5 * (1.0 / 3.0 + v * v + c * v);
    }
    double source = 0;
    if (Forced) {
      double even, odd;
      guo_source<L>(i, u, force, even, odd);
      source = even + odd;
    }
    f[i] += -omega * (f[i] - feq) + (1 - 0.5 * omega) * source;
  }
}

template <class L, bool Forced>
void expect_cm_equal_rates_is_factorised_bgk() {
  double a[L::Q], b[L::Q];
  const double u0[3] = {0.1, -0.07, 0.04};
  perturbed_equilibrium<L>(a, 0.99, u0, 4);
  for (int i = 0; i < L::Q; ++i) b[i] = a[i];
  const double force[3] = {1e-4, -2e-4, L::D == 3 ? 1.5e-4 : 0.0};
  const double omega = 1.0 / 0.53;
  collide_once<CM, L, double, Forced>(a, force, {omega, omega, omega, omega});
  factorised_bgk<L, Forced>(b, force, omega);
  for (int i = 0; i < L::Q; ++i) EXPECT_NEAR(a[i], b[i], 1e-15) << L::name << " forced " << Forced << " i " << i;
}

// CM with one rate is BGK towards the factorised equilibrium, which differs from
// equilibrium.hpp's by O(u^3): from equilibrium populations (no noise, whose momentum would
// not scale with u), halving the velocity divides the difference to Karman's BGK by about 8.
TEST(MomentCollisions, CmWithEqualRatesIsBgkOfTheFactorisedEquilibrium) {
  expect_cm_equal_rates_is_factorised_bgk<D2Q9, false>();
  expect_cm_equal_rates_is_factorised_bgk<D2Q9, true>();
  expect_cm_equal_rates_is_factorised_bgk<D3Q27, false>();
  expect_cm_equal_rates_is_factorised_bgk<D3Q27, true>();
  for (double u : {0.1, 0.05}) {
    const double d = max_difference_to_bgk<CM, D3Q27, true>(u, 0.0);
    const double half = max_difference_to_bgk<CM, D3Q27, true>(0.5 * u, 0.0);
    EXPECT_NEAR(d / half, 8.0, 1.0) << "u = " << u << ": " << d << " vs " << half;
  }
}

// Mass and momentum (plus the force's impulse) survive a collision with distinct rates,
// double and float arithmetic (float: the compute type of the FP16 storage precisions).
template <class Collision, class L, class T, bool Forced>
void expect_conservation(double tolerance) {
  T f[L::Q];
  const double u0[3] = {0.09, 0.05, -0.06};
  perturbed_equilibrium<L>(f, 1.03, u0, 5);
  const T force[3] = {T(Forced ? 3e-4 : 0), T(Forced ? -1e-4 : 0), T(Forced && L::D == 3 ? 2e-4 : 0)};
  auto totals = [&](double(&t)[4]) {
    for (double& v : t) v = 0;
    for (int i = 0; i < L::Q; ++i) {
      t[0] += double(f[i]);
      for (int d = 0; d < 3; ++d) t[1 + d] += double(f[i]) * L::c(i, d);
    }
  };
  double before[4], after[4];
  totals(before);
  collide_once<Collision, L, T, Forced>(f, force, {T(1 / 0.52), T(1), T(1.3), T(1.1)});
  totals(after);
  const std::string what = std::string(Collision::name) + " " + L::name + " forced " + std::to_string(Forced);
  EXPECT_NEAR(after[0], before[0], tolerance) << what << " mass";
  for (int d = 0; d < 3; ++d)
    EXPECT_NEAR(after[1 + d], before[1 + d] + double(force[d]), tolerance) << what << " axis " << d;
  double change = 0;
  for (int i = 0; i < L::Q; ++i) change += std::fabs(double(f[i]) - equilibrium<L>(i, 1.03, u0));
  EXPECT_GT(change, 1e-3) << what << ": the collision must have changed the populations";
}

template <class Collision, class L>
void expect_conservation_all() {
  expect_conservation<Collision, L, double, false>(1e-14);
  expect_conservation<Collision, L, double, true>(1e-14);
  expect_conservation<Collision, L, float, false>(2e-6);
  expect_conservation<Collision, L, float, true>(2e-6);
}

TEST(MomentCollisions, ConserveMassAndMomentum) {
  expect_conservation_all<MRT, D2Q9>();
  expect_conservation_all<MRT, D3Q19>();
  expect_conservation_all<CM, D2Q9>();
  expect_conservation_all<CM, D3Q27>();
}

// Distinct rates act on distinct moments: the bulk rate leaves a shear-only deviation alone.
TEST(MomentCollisions, BulkRateActsOnlyOnTheTrace) {
  double a[D3Q27::Q], b[D3Q27::Q];
  const double u0[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < D3Q27::Q; ++i) {
    // A pure xy shear stress: f^neq_i = w_i c_x c_y eps has no trace and no higher moments
    // beyond those of c_x c_y.
    a[i] = b[i] = equilibrium<D3Q27>(i, 1.0, u0) + 1e-3 * D3Q27::w(i) * D3Q27::c(i, 0) * D3Q27::c(i, 1);
  }
  const double force[3] = {0, 0, 0}, omega = 1.5;
  collide_once<CM, D3Q27, double, false>(a, force, {omega, omega, 0.3, omega});
  collide_once<CM, D3Q27, double, false>(b, force, {omega, omega, 1.9, omega});
  for (int i = 0; i < D3Q27::Q; ++i) EXPECT_NEAR(a[i], b[i], 1e-15) << i;
  for (int i = 0; i < D3Q27::Q; ++i)
    b[i] = equilibrium<D3Q27>(i, 1.0, u0) + 1e-3 * D3Q27::w(i) * (D3Q27::c(i, 0) * D3Q27::c(i, 0) - 1.0 / 3);
  for (int i = 0; i < D3Q27::Q; ++i) a[i] = b[i];
  collide_once<CM, D3Q27, double, false>(a, force, {omega, omega, 0.3, omega});
  collide_once<CM, D3Q27, double, false>(b, force, {omega, omega, 1.9, omega});
  double diff = 0;
  for (int i = 0; i < D3Q27::Q; ++i) diff = std::fmax(diff, std::fabs(a[i] - b[i]));
  EXPECT_GT(diff, 1e-6) << "a normal stress has a trace: the bulk rate must change it";
}

TEST(MomentCollisions, DefinedOnlyForTheirLattices) {
  EXPECT_EQ(collisions_for("d2q9"), "bgk, trt, mrt, cm");
  EXPECT_EQ(collisions_for("d3q19"), "bgk, trt, mrt");
  EXPECT_EQ(collisions_for("d3q27"), "bgk, trt, cm");
  try {
    require_collision_for("cm", "d3q19");
    ADD_FAILURE() << "cm accepted on d3q19";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("accepted for d3q19: bgk, trt, mrt"), std::string::npos) << e.what();
  }
}

}  // namespace
