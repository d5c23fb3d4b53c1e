#include <karman/comm/collective_error.hpp>
#include <karman/comm/slab_decomposition.hpp>

namespace karman::comm {

namespace {
int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
int size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}
}  // namespace

SlabDecomposition::SlabDecomposition(const Extents& global, MPI_Comm comm, SlabEnds ends)
    // The partition checks the box against the rank count; run_collective makes a failure on
    // any rank an error on all of them, so no rank goes on to wait for a neighbour that quit.
    : m_partition(run_collective(comm, [&] { return SlabPartition(global, rank_of(comm), size_of(comm)); })),
      m_comm(comm),
      m_ends(ends) {
  const int rank = m_partition.rank(), ranks = m_partition.ranks();
  const bool periodic = ends == SlabEnds::periodic;
  if (rank > 0 || periodic) m_lower = (rank - 1 + ranks) % ranks;
  if (rank < ranks - 1 || periodic) m_upper = (rank + 1) % ranks;
}

}  // namespace karman::comm
