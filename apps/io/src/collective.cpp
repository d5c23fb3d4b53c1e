#include "collective.hpp"

#include <karman/core/error.hpp>

namespace karman::detail {

#if KARMAN_ENABLE_MPI
Collective::Collective(MPI_Comm comm) : m_comm(comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("karman::io: an MPI communicator was given before MPI_Init");
  MPI_Comm_rank(comm, &m_rank);
  MPI_Comm_size(comm, &m_size);
}
#endif

std::vector<long long> Collective::all_gather(const std::vector<long long>& values) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) {
    std::vector<long long> all(values.size() * m_size);
    MPI_Allgather(values.data(), static_cast<int>(values.size()), MPI_LONG_LONG, all.data(),
                  static_cast<int>(values.size()), MPI_LONG_LONG, m_comm);
    return all;
  }
#endif
  return values;
}

void Collective::agree(const std::string& local_error) const {
#if KARMAN_ENABLE_MPI
  if (m_size > 1) {
    const int mine = local_error.empty() ? m_size : m_rank;
    int first_failed = m_size;
    MPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, m_comm);
    if (first_failed == m_size) return;
    std::string message = local_error;
    int length = static_cast<int>(message.size());
    MPI_Bcast(&length, 1, MPI_INT, first_failed, m_comm);
    message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(message.data(), length, MPI_CHAR, first_failed, m_comm);
    throw Error(message + " [rank " + std::to_string(first_failed) + "]");
  }
#endif
  if (!local_error.empty()) throw Error(local_error);
}

}  // namespace karman::detail
