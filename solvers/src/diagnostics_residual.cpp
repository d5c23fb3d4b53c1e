// Steady-state residual: relative change of a state vector, with KokkosBlas norms
// (docs/architecture.md: Kokkos Kernels BLAS for residuals).
#include <karman/core/error.hpp>
#include <karman/lbm/diagnostics/relative_change.hpp>
#include <karman/lbm/diagnostics/steady_state_monitor.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_update.hpp>

#include <limits>
#include <sstream>

namespace karman::lbm {
namespace {

void require_same_extent(const char* where, const char* now_name, std::size_t now, const char* before_name,
                         std::size_t before) {
  if (now != before) {
    std::ostringstream msg;
    msg << where << ": " << now_name << " has extent " << now << " but " << before_name << " has extent " << before
        << "; they must be equal";
    throw Error(msg.str());
  }
}

// A zero state has no scale to be relative to; the absolute change is still meaningful
// (0 for two zero states) and keeps the residual finite.
double relative_or_absolute(double difference_norm, double now_norm) {
  return now_norm > 0 ? difference_norm / now_norm : difference_norm;
}

}  // namespace

double relative_change(Kokkos::View<const double*> now, Kokkos::View<const double*> before) {
  require_same_extent("karman::lbm::relative_change", "now", now.extent(0), "before", before.extent(0));
  Kokkos::View<double*> difference(Kokkos::ViewAllocateWithoutInitializing("karman::relative_change::difference"),
                                   now.extent(0));
  // gamma = 0 means the uninitialised contents of `difference` are never read.
  KokkosBlas::update(1.0, now, -1.0, before, 0.0, difference);
  return relative_or_absolute(KokkosBlas::nrm2(difference), KokkosBlas::nrm2(now));
}

double SteadyStateMonitor::update(Kokkos::View<const double*> velocity) {
  if (!m_has_snapshot) {
    if (m_previous.extent(0) != velocity.extent(0)) {
      m_previous = Kokkos::View<double*>(Kokkos::ViewAllocateWithoutInitializing("karman::SteadyStateMonitor"),
                                         velocity.extent(0));
    }
    Kokkos::deep_copy(m_previous, velocity);
    m_has_snapshot = true;
    return std::numeric_limits<double>::infinity();
  }
  require_same_extent("karman::lbm::SteadyStateMonitor::update", "velocity", velocity.extent(0), "the stored snapshot",
                      m_previous.extent(0));
  // The difference overwrites the snapshot in place, so the monitor holds one copy only.
  KokkosBlas::axpby(1.0, velocity, -1.0, m_previous);
  const double difference_norm = KokkosBlas::nrm2(m_previous);
  const double now_norm = KokkosBlas::nrm2(velocity);
  Kokkos::deep_copy(m_previous, velocity);
  return relative_or_absolute(difference_norm, now_norm);
}

void SteadyStateMonitor::reset() { m_has_snapshot = false; }

}  // namespace karman::lbm
