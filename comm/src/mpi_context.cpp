#include <karman/comm/mpi_context.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>

#include <exception>
#include <string>

namespace karman::comm {

namespace {
std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}
}  // namespace

MpiContext::MpiContext(int& argc, char**& argv, int required) : m_uncaught_at_start(std::uncaught_exceptions()) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Query_thread(&m_thread_level);
  } else {
    MPI_Init_thread(&argc, &argv, required, &m_thread_level);
    m_owns_mpi = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_size);
  // Every rank gets the same level from the same library, so this error is collective; MPI
  // is finalised first because the destructor of a half-built object never runs.
  if (m_thread_level < required) {
    if (m_owns_mpi) MPI_Finalize();
    throw Error("karman::comm::MpiContext: MPI provides thread support " + thread_level_name(m_thread_level) +
                ", below the required " + thread_level_name(required));
  }
}

MpiContext::~MpiContext() {
  if (!m_owns_mpi) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (std::uncaught_exceptions() > m_uncaught_at_start) {
    Ranks(MPI_COMM_WORLD).abort_all("an exception left the scope of karman::comm::MpiContext before it was handled");
  }
  MPI_Finalize();
}

}  // namespace karman::comm
