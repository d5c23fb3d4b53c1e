#pragma once
/// \file steady_state_monitor.hpp
/// Steady-state residual ‖u(t) − u(t−k)‖₂ / ‖u(t)‖₂ against a stored earlier snapshot.

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// Keeps the previous velocity snapshot on the device and reports the relative change to it.
/// The solver passes every velocity component of every fluid cell flattened into one view,
/// every k steps; the run is steady when the returned residual falls below its tolerance.
class SteadyStateMonitor {
 public:
  /// Relative change of `velocity` against the stored snapshot (see relative_change: the
  /// absolute change when ‖velocity‖₂ = 0), or +infinity when no snapshot is stored yet; then
  /// stores a copy of `velocity`. Throws karman::Error naming both extents when the length
  /// differs from the stored snapshot's.
  double update(Kokkos::View<const double*> velocity);
  /// Forgets the stored snapshot, so the next update returns +infinity.
  void reset();
  /// True once update has stored a snapshot (and reset has not been called since).
  bool has_snapshot() const { return m_has_snapshot; }

 private:
  Kokkos::View<double*> m_previous{};
  bool m_has_snapshot = false;
};

}  // namespace karman::lbm
