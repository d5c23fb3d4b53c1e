#pragma once
/// \file collective.hpp
/// The ranks of a writer acting as one: every rank learns every rank's arguments, and a failure
/// on any rank becomes the same karman::Error on all of them, so that no rank waits forever in
/// a collective call the others have abandoned (DESIGN.md: "with MPI every rank agrees and
/// nothing hangs").

#include <exception>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <mpi.h>
#endif

namespace karman::detail {

/// A group of ranks (one process when built or run without MPI).
class Collective {
 public:
  /// One process.
  Collective() = default;
#if KARMAN_ENABLE_MPI
  /// The ranks of `comm`.
  explicit Collective(MPI_Comm comm);
#endif

  /// This rank and the number of ranks.
  int rank() const { return m_rank; }
  int size() const { return m_size; }

  /// Runs `action` on every rank; when it throws on some ranks, every rank throws one
  /// karman::Error carrying the message of the lowest failing rank.
  template <class Action>
  void run(Action&& action) const {
    std::string error;
    try {
      action();
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unnamed error";
    }
    agree(error);
  }

  /// Every rank's `values` (the same count on every rank), rank after rank.
  std::vector<long long> all_gather(const std::vector<long long>& values) const;

 private:
  /// Throws on every rank when `local_error` is non-empty on any rank.
  void agree(const std::string& local_error) const;

  int m_rank = 0;
  int m_size = 1;
#if KARMAN_ENABLE_MPI
  MPI_Comm m_comm = MPI_COMM_NULL;
#endif
};

}  // namespace karman::detail
