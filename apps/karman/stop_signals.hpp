#pragma once
/// \file stop_signals.hpp
/// SIGTERM and SIGINT as requests to stop: while a StopSignals lives, the handler only records
/// the signal; the time loop polls it at step boundaries, the ranks agree by a reduction, and the
/// run writes a checkpoint before it exits. A second signal terminates at once.

#include <csignal>

namespace karman::app {

/// SIGTERM and SIGINT recorded for the duration of a run, the previous handlers restored after.
class StopSignals {
 public:
  StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals();

 private:
  struct sigaction m_term {};
  struct sigaction m_int {};
};

/// The signal that asked the run to stop (SIGTERM, SIGINT), 0 while none did.
int stop_signal_received();

}  // namespace karman::app
