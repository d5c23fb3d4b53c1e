#pragma once
/// \file collective_error.hpp
/// How an error on one rank becomes an exit of every rank with one message and no hang
/// (DESIGN.md: "with MPI every rank agrees and nothing hangs"; waLBerla's Abort.cpp).
/// Two situations need two mechanisms:
///  - all ranks are at the same point (setup, input checks before the time loop): they agree
///    with one MPI_Allreduce, every rank throws CollectiveError carrying the failing rank's
///    message, rank 0 prints it, and every rank finalises MPI and exits non-zero;
///  - one rank fails alone (inside the time loop, while its neighbours wait in MPI for its
///    messages): it cannot ask the others anything, so it prints its message and calls
///    MPI_Abort, which ends every rank with a non-zero code.

#include <karman/core/error.hpp>

#include <mpi.h>

#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

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

/// Collective: true on every rank when `flag` is true on any rank of `comm` (MPI_LOR reduction).
bool any_rank(bool flag, MPI_Comm comm = MPI_COMM_WORLD);

/// Collective: returns when no rank of `comm` `failed`; otherwise throws, on every rank, a
/// CollectiveError with the `message` of the lowest failing rank.
void agree_on_error(bool failed, const std::string& message, MPI_Comm comm = MPI_COMM_WORLD);

/// Prints "karman: error on rank r of n: message" from the calling rank only, then ends every
/// rank of `comm` with MPI_Abort(exit_code). For errors this rank meets alone.
[[noreturn]] void abort_all(const std::string& message, int exit_code = 1, MPI_Comm comm = MPI_COMM_WORLD);

namespace detail {
/// Text of the exception being handled (for catch (...) blocks).
std::string current_exception_message();
/// Prints a CollectiveError once (from rank 0 of `comm`).
void print_collective_error(const CollectiveError& error, MPI_Comm comm);
}  // namespace detail

/// Collective: runs `body` on every rank of `comm`; if it throws on any rank, every rank throws
/// a CollectiveError with the lowest failing rank's message. Returns what `body` returns.
template <class Body>
auto run_collective(MPI_Comm comm, Body&& body) -> decltype(body()) {
  using Result = decltype(body());
  bool failed = false;
  std::string message;
  if constexpr (std::is_void_v<Result>) {
    try {
      body();
    } catch (...) {
      failed = true;
      message = detail::current_exception_message();
    }
    agree_on_error(failed, message, comm);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(body());
    } catch (...) {
      failed = true;
      message = detail::current_exception_message();
    }
    agree_on_error(failed, message, comm);
    return std::move(*result);
  }
}

/// The body of `main` under MPI. Returns `body()`'s exit code. A CollectiveError is printed by
/// rank 0 and every rank returns 1 (MPI then finalises normally); any other exception was met
/// by this rank alone and ends every rank through abort_all.
template <class Body>
int run_guarded(MPI_Comm comm, Body&& body) {
  try {
    return body();
  } catch (const CollectiveError& error) {
    detail::print_collective_error(error, comm);
    return 1;
  } catch (...) {
    abort_all(detail::current_exception_message(), 1, comm);
  }
}

}  // namespace karman::comm
