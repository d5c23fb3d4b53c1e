#include "stop_signals.hpp"

namespace karman::app {
namespace {

/// The signal that asked the run to stop (SIGTERM, SIGINT), 0 while none did. The handler only
/// records it; the time loop polls it at step boundaries and the ranks agree by a reduction.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void record_stop_signal(int signal) {
  if (stop_signal != 0) {
    // A second signal: the user insists, so the default action (termination) takes over.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal = signal;
}

}  // namespace

StopSignals::StopSignals() {
  stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = record_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file calls continue; the loop looks at the flag
  sigaction(SIGTERM, &action, &m_term);
  sigaction(SIGINT, &action, &m_int);
}
StopSignals::~StopSignals() {
  sigaction(SIGTERM, &m_term, nullptr);
  sigaction(SIGINT, &m_int, nullptr);
}

int stop_signal_received() { return stop_signal; }

}  // namespace karman::app
