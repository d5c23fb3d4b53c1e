#pragma once
/// \file collective_error.hpp
/// How an error on one rank becomes an exit of every rank with one message and no hang
/// (docs/architecture.md, comm::Ranks; waLBerla's Abort.cpp).
/// Two situations need two mechanisms (both offered by karman::comm::Ranks, ranks.hpp):
///  - all ranks are at the same point (setup, input checks before the time loop): they agree
///    with one reduction (Ranks::run), every rank throws CollectiveError carrying the failing
///    rank's message, rank 0 prints it, and every rank finalises MPI and exits non-zero;
///  - one rank fails alone (inside the time loop, while its neighbours wait in MPI for its
///    messages): it cannot ask the others anything, so it prints its message and ends every
///    rank (Ranks::abort_all, MPI_Abort), each with a non-zero code.

#include <karman/core/error.hpp>

#include <string>

namespace karman::comm {

/// An error that every rank of a communicator throws at the same point; handling it by
/// returning from `main` is safe because no rank is left waiting.
class CollectiveError : public Error {
 public:
  /// `message` from rank `failing_rank`, the lowest rank that failed.
  CollectiveError(const std::string& message, int failing_rank) : Error(message), m_failing_rank(failing_rank) {}
  /// Lowest rank on which the error occurred.
  int failing_rank() const { return m_failing_rank; }

 private:
  int m_failing_rank = 0;
};

}  // namespace karman::comm
