#include <karman/comm/collective_error.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace karman::comm {

bool any_rank(bool flag, MPI_Comm comm) {
  int mine = flag ? 1 : 0, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, comm);
  return any != 0;
}

void agree_on_error(bool failed, const std::string& message, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The lowest failing rank speaks for all: one message, the same on every rank.
  int mine = failed ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::string text = rank == first ? message : std::string();
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  throw CollectiveError(text, first);
}

void abort_all(const std::string& message, int exit_code, MPI_Comm comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  const bool mpi_running = initialized && !finalized;
  int rank = 0, size = 1;
  if (mpi_running) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  std::ostringstream line;
  line << "karman: error";
  if (size > 1) line << " on rank " << rank << " of " << size;
  line << ": " << message << '\n';
  // One write, flushed before MPI_Abort tears the process down.
  std::fputs(line.str().c_str(), stderr);
  std::fflush(stderr);
  if (mpi_running) MPI_Abort(comm, exit_code);
  std::_Exit(exit_code);
}

namespace detail {

std::string current_exception_message() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

void print_collective_error(const CollectiveError& error, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank != 0) return;
  std::ostringstream line;
  line << "karman: error";
  if (size > 1 && error.failing_rank() != 0) line << " on rank " << error.failing_rank() << " of " << size;
  line << ": " << error.what() << '\n';
  std::fputs(line.str().c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace detail

}  // namespace karman::comm
