#include <karman/comm/ranks.hpp>
#include <karman/comm/slab_decomposition.hpp>

namespace karman::comm {

namespace {
/// This rank's slab. The partition checks the box against the rank count; Ranks::run makes a
/// failure on any rank an error on all of them, so no rank goes on to wait for a neighbour that quit.
SlabPartition partition_over(const Extents& global, MPI_Comm comm, SlabEnds ends) {
  const Ranks ranks(comm);
  return ranks.run([&] { return SlabPartition(global, ranks.rank(), ranks.size(), 1, ends == SlabEnds::periodic); });
}
}  // namespace

SlabDecomposition::SlabDecomposition(const Extents& global, MPI_Comm comm, SlabEnds ends)
    : m_partition(partition_over(global, comm, ends)), m_comm(comm), m_ends(ends) {
  const int rank = m_partition.rank(), ranks = m_partition.ranks();
  if (!m_partition.closed(m_partition.lower())) m_lower = (rank - 1 + ranks) % ranks;
  if (!m_partition.closed(m_partition.upper())) m_upper = (rank + 1) % ranks;
}

}  // namespace karman::comm
