#pragma once
/// \file slab_decomposition.hpp
/// The global box cut into slabs along its slowest axis, one per rank, and who each rank's
/// neighbours are (Meneghin & Mahmoud §VI-A: 1D partitioning, at most two neighbours per partition).

#include <karman/core/dense/partition.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/halo_plan.hpp>

#include <mpi.h>

#include <string_view>

namespace karman::comm {

/// What lies beyond the first and last slab along the slab axis.
enum class SlabEnds : int {
  wall = 0,     ///< nothing: the end ranks have no neighbour there
  periodic = 1  ///< the last slab's upper neighbour is the first slab (and a lone rank is its own neighbour)
};

/// Name of an end condition, as in messages and output ("wall", "periodic").
constexpr std::string_view name(SlabEnds ends) { return ends == SlabEnds::wall ? "wall" : "periodic"; }

/// This rank's slab of the global box (a karman::SlabPartition, uneven slabs allowed) and the
/// ranks of its lower and upper neighbours in the communicator.
class SlabDecomposition {
 public:
  /// Collective over `comm`: rank r of N owns the r-th of N slabs. A box too thin for N ranks
  /// throws a CollectiveError on every rank (karman/comm/collective_error.hpp).
  SlabDecomposition(const Extents& global, MPI_Comm comm, SlabEnds ends);

  /// This rank's slab, groups and local box.
  const SlabPartition& partition() const { return m_partition; }
  /// The communicator the ranks below are numbered in (not owned).
  MPI_Comm comm() const { return m_comm; }
  /// End condition along the slab axis.
  SlabEnds ends() const { return m_ends; }
  /// This rank and the number of ranks.
  int rank() const { return m_partition.rank(); }
  int ranks() const { return m_partition.ranks(); }
  /// Rank of the neighbour `step` away: the partition's lower() or upper() neighbour, or
  /// MPI_PROC_NULL at a wall end and for every step a slab has no neighbour along.
  int neighbour(NeighbourStep step) const {
    return step == m_partition.lower() ? m_lower : step == m_partition.upper() ? m_upper : MPI_PROC_NULL;
  }
  /// True when there is a neighbour `step` away (possibly this rank itself).
  bool has_neighbour(NeighbourStep step) const { return neighbour(step) != MPI_PROC_NULL; }
  /// Number of sides with a neighbour: 0, 1 (an end rank between walls) or 2.
  int neighbours() const { return int(has_neighbour(m_partition.lower())) + int(has_neighbour(m_partition.upper())); }

 private:
  SlabPartition m_partition;
  MPI_Comm m_comm = MPI_COMM_NULL;
  SlabEnds m_ends = SlabEnds::wall;
  int m_lower = MPI_PROC_NULL;
  int m_upper = MPI_PROC_NULL;
};

}  // namespace karman::comm
