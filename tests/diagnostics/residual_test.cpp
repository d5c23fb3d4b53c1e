// relative_change and SteadyStateMonitor on vectors whose norms are known exactly.
#include <karman/core/error.hpp>
#include <karman/lbm/diagnostics/relative_change.hpp>
#include <karman/lbm/diagnostics/steady_state_monitor.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using karman::lbm::relative_change;
using karman::lbm::SteadyStateMonitor;

Kokkos::View<const double*> device_vector(const std::vector<double>& values) {
  Kokkos::View<double*> view("vector", values.size());
  const auto host = Kokkos::create_mirror_view(view);
  for (std::size_t k = 0; k < values.size(); ++k) host(k) = values[k];
  Kokkos::deep_copy(view, host);
  return view;
}

TEST(RelativeChange, KnownVectors) {
  // ‖(1, 2, 2)‖ = 3 and the difference (0, 0, 2) has norm 2.
  EXPECT_DOUBLE_EQ(relative_change(device_vector({1, 2, 2}), device_vector({1, 2, 0})), 2.0 / 3.0);
  // ‖(3, 4)‖ = 5 and the difference (6, 8) has norm 10: the change can exceed 1.
  EXPECT_DOUBLE_EQ(relative_change(device_vector({3, 4}), device_vector({-3, -4})), 2.0);
  EXPECT_EQ(relative_change(device_vector({0.5, -7, 1e3}), device_vector({0.5, -7, 1e3})), 0.0);
}

TEST(RelativeChange, ZeroNowGivesAbsoluteChange) {
  EXPECT_DOUBLE_EQ(relative_change(device_vector({0, 0}), device_vector({3, 4})), 5.0);
  EXPECT_EQ(relative_change(device_vector({0, 0}), device_vector({0, 0})), 0.0);
}

TEST(RelativeChange, LongVectorMatchesClosedForm) {
  // now_k = 1, before_k = 1 + 1e-3 (−1)^k over 10^5 entries: change 1e-3 exactly.
  const int n = 100000;
  std::vector<double> now(n, 1.0), before(n);
  for (int k = 0; k < n; ++k) before[k] = 1.0 + (k % 2 ? 1e-3 : -1e-3);
  EXPECT_NEAR(relative_change(device_vector(now), device_vector(before)), 1e-3, 1e-15);
}

TEST(RelativeChange, SizeMismatchNamesBothExtents) {
  try {
    relative_change(device_vector({1, 2, 3}), device_vector({1, 2}));
    FAIL() << "expected karman::Error";
  } catch (const karman::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("extent 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("extent 2"), std::string::npos) << msg;
  }
}

TEST(SteadyStateMonitor, ResidualAgainstPreviousSnapshot) {
  SteadyStateMonitor monitor;
  EXPECT_FALSE(monitor.has_snapshot());
  EXPECT_TRUE(std::isinf(monitor.update(device_vector({1, 2, 0}))));
  EXPECT_TRUE(monitor.has_snapshot());
  EXPECT_DOUBLE_EQ(monitor.update(device_vector({1, 2, 2})), 2.0 / 3.0);
  // Each update replaces the snapshot: now (1, 2, 2).
  EXPECT_EQ(monitor.update(device_vector({1, 2, 2})), 0.0);
  EXPECT_DOUBLE_EQ(monitor.update(device_vector({3, 4, 0})), std::sqrt(4.0 + 4.0 + 4.0) / 5.0);
}

TEST(SteadyStateMonitor, SnapshotIsACopy) {
  SteadyStateMonitor monitor;
  Kokkos::View<double*> velocity("velocity", 2);
  Kokkos::deep_copy(velocity, 1.0);
  monitor.update(velocity);
  Kokkos::deep_copy(velocity, 2.0);
  // Against the stored (1, 1): ‖(1, 1)‖ / ‖(2, 2)‖ = 1/2.
  EXPECT_DOUBLE_EQ(monitor.update(velocity), 0.5);
}

TEST(SteadyStateMonitor, SizeMismatchAndReset) {
  SteadyStateMonitor monitor;
  monitor.update(device_vector({1, 2, 3}));
  EXPECT_THROW(monitor.update(device_vector({1, 2})), karman::Error);
  // A failed update leaves the snapshot in place.
  EXPECT_EQ(monitor.update(device_vector({1, 2, 3})), 0.0);
  monitor.reset();
  EXPECT_FALSE(monitor.has_snapshot());
  // After a reset any length starts a new series.
  EXPECT_TRUE(std::isinf(monitor.update(device_vector({1, 2}))));
  EXPECT_DOUBLE_EQ(monitor.update(device_vector({0, 2})), 0.5);
}

}  // namespace
