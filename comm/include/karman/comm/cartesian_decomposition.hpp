#pragma once
/// \file cartesian_decomposition.hpp
/// The global box cut into blocks by a process grid of 1, 2 or 3 dimensions, one per rank, and
/// who each rank's face, edge and corner neighbours are (Meneghin & Mahmoud §III generalised
/// from their 1D slabs to blocks; the slab grid 1×1×N is SlabDecomposition's).

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/extents.hpp>

#include <mpi.h>

#include <array>
#include <string>

namespace karman::comm {

/// The process grid for `ranks` ranks on a box of `dimension` (2 or 3): the balanced grid of
/// MPI_Dims_create, its largest factor along the slowest axis (so 2 or 3 ranks give slabs).
std::array<int, 3> default_process_grid(int ranks, int dimension);

/// Reads a process grid written "AxBxC" (3D) or "AxB" (2D) for `ranks` ranks. Throws
/// karman::Error naming the text and what is accepted: the form, counts of at least 1, and a
/// product equal to `ranks`.
std::array<int, 3> parse_process_grid(const std::string& text, int ranks, int dimension);

/// This rank's block of the global box (a karman::CartesianPartition) and the ranks of its
/// neighbours in the communicator, numbered x fastest over the grid.
class CartesianDecomposition {
 public:
  /// Collective over `comm`, whose size must be the product of `dims`; `periodic[a]` wraps the
  /// box along axis a, or closes it, on every grid (CartesianPartition's constructor: a closed
  /// axis has a halo past its ends that no exchange writes and the user fills, cut or not). A
  /// box too thin for the grid throws a CollectiveError on every rank.
  CartesianDecomposition(const Extents& global, MPI_Comm comm, std::array<int, 3> dims, std::array<bool, 3> periodic);

  /// This rank's block, groups and local box.
  const CartesianPartition& partition() const { return m_partition; }
  /// The communicator the ranks are numbered in (not owned).
  MPI_Comm comm() const { return m_comm; }
  /// This rank and the number of ranks.
  int rank() const { return m_partition.rank(); }
  int ranks() const { return m_partition.ranks(); }
  /// Rank of the neighbour `step` away (possibly this rank itself along a periodic axis of one
  /// block), or MPI_PROC_NULL past a closed side and for steps the block has no groups towards.
  int neighbour(NeighbourStep step) const;
  /// True when there is a neighbour `step` away.
  bool has_neighbour(NeighbourStep step) const { return neighbour(step) != MPI_PROC_NULL; }
  /// Number of steps with a neighbour (faces, edges and corners; 2 for an inner slab).
  int neighbours() const;

 private:
  CartesianPartition m_partition;
  MPI_Comm m_comm = MPI_COMM_NULL;
};

}  // namespace karman::comm
