#include "parallel.hpp"

namespace karman::app {

#if KARMAN_ENABLE_MPI
Parallel::Parallel(MPI_Comm comm) : m_comm(comm) {
  MPI_Comm_rank(comm, &m_rank);
  MPI_Comm_size(comm, &m_size);
}

double Parallel::sum(double local) const {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, m_comm);
  return global;
}

double Parallel::max(double local) const {
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, m_comm);
  return global;
}

unsigned Parallel::bitwise_or(unsigned local) const {
  unsigned global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_UNSIGNED, MPI_BOR, m_comm);
  return global;
}

std::vector<double> Parallel::gather(const std::vector<double>& local) const {
  const int count = int(local.size());
  std::vector<int> counts(root() ? m_size : 0), offsets;
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, m_comm);
  std::vector<double> all;
  if (root()) {
    offsets.resize(m_size);
    int total = 0;
    for (int r = 0; r < m_size; ++r) {
      offsets[r] = total;
      total += counts[r];
    }
    all.resize(std::size_t(total));
  }
  MPI_Gatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, m_comm);
  return all;
}
#else
double Parallel::sum(double local) const { return local; }
double Parallel::max(double local) const { return local; }
unsigned Parallel::bitwise_or(unsigned local) const { return local; }
std::vector<double> Parallel::gather(const std::vector<double>& local) const { return local; }
#endif

}  // namespace karman::app
