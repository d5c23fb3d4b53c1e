#pragma once
/// \file mpi_context.hpp
/// MPI for the lifetime of one object: initialised in the constructor, finalised in the
/// destructor, so `main` cannot forget either and Kokkos (created after it) is gone first.

#include <mpi.h>

namespace karman::comm {

/// Owns MPI_Init_thread / MPI_Finalize. Create it first in `main`, before Kokkos, so that
/// Kokkos can read the launcher's local-rank variables to pick a GPU, and let it die last.
class MpiContext {
 public:
  /// Initialises MPI with at least `required` thread support (MPI_THREAD_FUNNELED: only the
  /// thread that runs `main` calls MPI, as with Kokkos' OpenMP backend). Throws karman::Error
  /// when the library offers less. If MPI is already initialised, it is used and left running.
  MpiContext(int& argc, char**& argv, int required = MPI_THREAD_FUNNELED);
  /// Finalises MPI if this object initialised it. If an exception is unwinding the stack, the
  /// other ranks may wait forever in MPI_Finalize for this one, so all ranks are aborted instead.
  ~MpiContext();

  MpiContext(const MpiContext&) = delete;
  MpiContext& operator=(const MpiContext&) = delete;

  /// This process's rank in comm().
  int rank() const { return m_rank; }
  /// Number of ranks in comm().
  int size() const { return m_size; }
  /// The communicator of the whole run (MPI_COMM_WORLD).
  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  /// Thread support level MPI provides (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
  int thread_level() const { return m_thread_level; }

 private:
  bool m_owns_mpi = false;
  int m_rank = 0;
  int m_size = 1;
  int m_thread_level = MPI_THREAD_SINGLE;
  int m_uncaught_at_start = 0;
};

}  // namespace karman::comm
