#include <karman/comm/ranks.hpp>
#include <karman/comm/slab_decomposition.hpp>

namespace karman::comm {

namespace {
/// This rank's slab. The partition checks the box against the rank count; Ranks::run makes a
/// failure on any rank an error on all of them, so no rank goes on to wait for a neighbour that quit.
SlabPartition partition_over(const Extents& global, MPI_Comm comm) {
  const Ranks ranks(comm);
  return ranks.run([&] { return SlabPartition(global, ranks.rank(), ranks.size()); });
}
}  // namespace

SlabDecomposition::SlabDecomposition(const Extents& global, MPI_Comm comm, SlabEnds ends)
    : m_partition(partition_over(global, comm)), m_comm(comm), m_ends(ends) {
  const int rank = m_partition.rank(), ranks = m_partition.ranks();
  const bool periodic = ends == SlabEnds::periodic;
  if (rank > 0 || periodic) m_lower = (rank - 1 + ranks) % ranks;
  if (rank < ranks - 1 || periodic) m_upper = (rank + 1) % ranks;
}

}  // namespace karman::comm
