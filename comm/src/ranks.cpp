#include <karman/comm/ranks.hpp>

#if KARMAN_ENABLE_MPI
#include <karman/comm/mpi_datatype.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

namespace karman::comm {

namespace {

/// "karman: error on rank r of n: message" (without the rank when `name_rank` is false), in one
/// write, flushed before the process may be torn down.
void print_error(const std::string& message, bool name_rank, int rank, int size) {
  std::ostringstream line;
  line << "karman: error";
  if (name_rank) line << " on rank " << rank << " of " << size;
  line << ": " << message << '\n';
  std::fputs(line.str().c_str(), stderr);
  std::fflush(stderr);
}

#if KARMAN_ENABLE_MPI
/// `local` combined over the ranks of `comm` by `op`, on every rank.
template <class T>
T all_reduce(T local, MPI_Op op, MPI_Comm comm) {
  T global{};
  MPI_Allreduce(&local, &global, 1, mpi_datatype<T>(), op, comm);
  return global;
}

/// Element-wise sum over the `size` ranks of `comm` of `count` values at `values`, in place.
template <class T>
void sum_over(MPI_Comm comm, int size, T* values, std::size_t count) {
  if (size == 1) return;
  // MPI counts are int: long arrays go in pieces.
  constexpr std::size_t piece = std::size_t(1) << 30;
  for (std::size_t first = 0; first < count; first += piece) {
    const int n = static_cast<int>(std::min(piece, count - first));
    MPI_Allreduce(MPI_IN_PLACE, values + first, n, mpi_datatype<T>(), MPI_SUM, comm);
  }
}
#endif

}  // namespace

#if KARMAN_ENABLE_MPI
Ranks::Ranks(MPI_Comm comm) : m_comm(comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("karman::comm::Ranks: a communicator was given before MPI_Init");
  MPI_Comm_rank(comm, &m_rank);
  MPI_Comm_size(comm, &m_size);
}
#endif

// With one rank every collective is the identity and MPI is never called, so a default-constructed
// Ranks works in MPI builds too.

double Ranks::sum(double local) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) return all_reduce(local, MPI_SUM, m_comm);
#endif
  return local;
}

void Ranks::sum_in_place(double* values, std::size_t count) const {
#if KARMAN_ENABLE_MPI
  sum_over(m_comm, m_size, values, count);
#else
  (void)values;
  (void)count;
#endif
}

void Ranks::sum_in_place(long long* values, std::size_t count) const {
#if KARMAN_ENABLE_MPI
  sum_over(m_comm, m_size, values, count);
#else
  (void)values;
  (void)count;
#endif
}

void Ranks::sum_in_place(std::uint64_t* values, std::size_t count) const {
#if KARMAN_ENABLE_MPI
  sum_over(m_comm, m_size, values, count);
#else
  (void)values;
  (void)count;
#endif
}

double Ranks::max(double local) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) return all_reduce(local, MPI_MAX, m_comm);
#endif
  return local;
}

unsigned Ranks::bitwise_or(unsigned local) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) return all_reduce(local, MPI_BOR, m_comm);
#endif
  return local;
}

bool Ranks::any(bool local) const { return bitwise_or(local ? 1u : 0u) != 0; }

void Ranks::barrier() const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) MPI_Barrier(m_comm);
#endif
}

std::vector<double> Ranks::gather(const std::vector<double>& local) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) {
    const int count = static_cast<int>(local.size());
    std::vector<int> counts(root() ? m_size : 0), offsets(root() ? m_size : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, m_comm);
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    std::vector<double> all(static_cast<std::size_t>(total));
    MPI_Gatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, m_comm);
    return all;
  }
#endif
  return local;
}

std::vector<long long> Ranks::all_gather(const std::vector<long long>& local) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) {
    const int count = static_cast<int>(local.size());
    std::vector<long long> all(local.size() * static_cast<std::size_t>(m_size));
    MPI_Allgather(local.data(), count, MPI_LONG_LONG, all.data(), count, MPI_LONG_LONG, m_comm);
    return all;
  }
#endif
  return local;
}

void Ranks::agree(bool failed, const std::string& message) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) {
    // The lowest failing rank speaks for all: one message, the same on every rank.
    const int first = all_reduce(failed ? m_rank : m_size, MPI_MIN, m_comm);
    if (first == m_size) return;
    std::string text = m_rank == first ? message : std::string();
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, first, m_comm);
    text.resize(static_cast<std::size_t>(length));
    MPI_Bcast(text.data(), length, MPI_CHAR, first, m_comm);
    throw CollectiveError(text, first);
  }
#endif
  if (failed) throw CollectiveError(message, m_rank);
}

void Ranks::report(const CollectiveError& error) const {
  if (!root()) return;
  print_error(error.what(), m_size > 1 && error.failing_rank() != 0, error.failing_rank(), m_size);
}

void Ranks::abort_all(const std::string& message, int exit_code) const {
  print_error(message, m_size > 1, m_rank, m_size);
#if KARMAN_ENABLE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized && m_comm != MPI_COMM_NULL) MPI_Abort(m_comm, exit_code);
#endif
  std::_Exit(exit_code);
}

std::string Ranks::current_exception_message() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

}  // namespace karman::comm
