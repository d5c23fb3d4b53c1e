#pragma once
/// \file parallel.hpp
/// The few collective operations the application needs, with or without MPI, so case code has
/// no #if: rank/size, sums and maxima, and gathering slabs of a global field on rank 0.

#include <cstdint>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <karman/comm/collective_error.hpp>

#include <mpi.h>
#endif

#include <utility>

namespace karman::app {

/// The ranks of one run.
class Parallel {
 public:
#if KARMAN_ENABLE_MPI
  /// All ranks of `comm`.
  explicit Parallel(MPI_Comm comm);
  /// The communicator (MPI_COMM_WORLD for the command line).
  MPI_Comm comm() const { return m_comm; }
#else
  Parallel() = default;
#endif
  /// This rank and the number of ranks.
  int rank() const { return m_rank; }
  int size() const { return m_size; }
  /// True on rank 0, which prints and writes shared files.
  bool root() const { return m_rank == 0; }
  /// Sum over ranks, on every rank.
  double sum(double local) const;
  /// Maximum over ranks, on every rank.
  double max(double local) const;
  /// Bitwise OR over ranks, on every rank (flags that any rank may raise).
  unsigned bitwise_or(unsigned local) const;
  /// Concatenation in rank order of every rank's `local`, on rank 0 (empty elsewhere).
  std::vector<double> gather(const std::vector<double>& local) const;

 private:
#if KARMAN_ENABLE_MPI
  MPI_Comm m_comm = MPI_COMM_WORLD;
#endif
  int m_rank = 0;
  int m_size = 1;
};

/// Runs `body` on every rank; an error on any rank becomes the same error on all of them, so
/// bad input detected before the time loop ends every rank with one message and no hang.
template <class Body>
auto collectively(const Parallel& parallel, Body&& body) {
#if KARMAN_ENABLE_MPI
  return comm::run_collective(parallel.comm(), std::forward<Body>(body));
#else
  (void)parallel;
  return body();
#endif
}

}  // namespace karman::app
