#pragma once
/// \file ranks.hpp
/// The ranks of one run acting together: reductions, gathers, and errors that every rank agrees
/// on (collective_error.hpp). The same class serves builds with and without MPI, so code above
/// it needs no `#if KARMAN_ENABLE_MPI` to sum, gather or fail collectively.

#include <karman/comm/collective_error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <mpi.h>
#endif

namespace karman::comm {

/// The ranks of one run: one process when default-constructed (or built without MPI), the ranks
/// of a communicator otherwise. Every member but rank(), size(), root() and abort_all() is
/// collective: all ranks call it, in the same order.
class Ranks {
 public:
  /// One process.
  Ranks() = default;
#if KARMAN_ENABLE_MPI
  /// The ranks of `comm`, which must stay valid while this object is used. Throws karman::Error
  /// when MPI is not initialised.
  explicit Ranks(MPI_Comm comm);
  /// The communicator (MPI_COMM_NULL for one process made by the default constructor).
  MPI_Comm comm() const { return m_comm; }
#endif

  /// This process's rank, 0 <= rank() < size().
  int rank() const { return m_rank; }
  /// Number of ranks.
  int size() const { return m_size; }
  /// True on rank 0, which prints and writes shared files.
  bool root() const { return m_rank == 0; }

  /// Sum over ranks, on every rank.
  double sum(double local) const;
  /// Element-wise sum over ranks of `count` values at `values`, replaced by it on every rank
  /// (`count` the same on every rank).
  void sum_in_place(double* values, std::size_t count) const;
  /// The same for integers: exact, so the result does not depend on how MPI orders the ranks.
  void sum_in_place(long long* values, std::size_t count) const;
  /// The same for 64-bit unsigned counts (voxels, cells, updates past 2^63 on large runs), exact
  /// and wrapping modulo 2^64 like the unsigned arithmetic it sums.
  void sum_in_place(std::uint64_t* values, std::size_t count) const;
  /// Maximum over ranks, on every rank.
  double max(double local) const;
  /// Bitwise OR over ranks, on every rank (flags that any rank may raise).
  unsigned bitwise_or(unsigned local) const;
  /// True on every rank when `local` is true on any rank.
  bool any(bool local) const;
  /// Returns when every rank has called it.
  void barrier() const;
  /// Concatenation in rank order of every rank's `local` (counts may differ), on rank 0; empty
  /// on the other ranks.
  std::vector<double> gather(const std::vector<double>& local) const;
  /// Concatenation in rank order of every rank's `local` (the same count on every rank), on
  /// every rank.
  std::vector<long long> all_gather(const std::vector<long long>& local) const;

  /// Runs `body` on every rank; if it throws on any rank, every rank throws a CollectiveError
  /// with the message of the lowest failing rank. Returns what `body` returns.
  template <class Body>
  auto run(Body&& body) const -> decltype(body());

  /// The body of `main`: returns `body()`'s exit code. A CollectiveError is printed by rank 0
  /// and every rank returns 1 (MPI then finalises normally). Any other exception was met by this
  /// rank alone: with one rank it is printed and 1 returned, with more it ends every rank
  /// through abort_all.
  template <class Body>
  int run_guarded(Body&& body) const;

  /// Prints "karman: error on rank r of n: message" from the calling rank only, then ends every
  /// rank with exit code `exit_code` (MPI_Abort). For errors this rank meets alone.
  [[noreturn]] void abort_all(const std::string& message, int exit_code = 1) const;

 private:
  /// Returns when no rank `failed`; otherwise throws, on every rank, a CollectiveError with the
  /// `message` of the lowest failing rank.
  void agree(bool failed, const std::string& message) const;
  /// Prints `error` once, from rank 0.
  void report(const CollectiveError& error) const;
  /// Text of the exception being handled (for catch (...) blocks).
  static std::string current_exception_message();

#if KARMAN_ENABLE_MPI
  MPI_Comm m_comm = MPI_COMM_NULL;
#endif
  int m_rank = 0;
  int m_size = 1;
};

template <class Body>
auto Ranks::run(Body&& body) const -> decltype(body()) {
  using Result = decltype(body());
  bool failed = false;
  std::string message;
  if constexpr (std::is_void_v<Result>) {
    try {
      body();
    } catch (...) {
      failed = true;
      message = current_exception_message();
    }
    agree(failed, message);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(body());
    } catch (...) {
      failed = true;
      message = current_exception_message();
    }
    agree(failed, message);
    return std::move(*result);
  }
}

template <class Body>
int Ranks::run_guarded(Body&& body) const {
  try {
    return body();
  } catch (const CollectiveError& error) {
    report(error);
    return 1;
  } catch (...) {
    // No other rank waits for a lone process: it leaves like everyone after a collective error.
    if (m_size == 1) {
      report(CollectiveError(current_exception_message(), m_rank));
      return 1;
    }
    abort_all(current_exception_message());
  }
}

}  // namespace karman::comm
