#pragma once
/// \file partition.hpp
/// The part of a global box one rank owns, cut into slabs along the slowest axis with a
/// halo of width 1 (the LBM stencil radius) on each side (Meneghin & Mahmoud §III, §VI-A).

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>

#include <string>

namespace karman {

/// A rank's slab of a global box, cut along Extents::slab_axis() (z for 3D boxes, y for 2D
/// boxes), so a plane is what a neighbour exchange moves.
/// Local voxels are numbered x fastest over the local box, which holds the owned planes plus
/// one halo plane below and one above: groups are whole planes, consecutive in memory.
class SlabPartition {
 public:
  /// Owned slab of `rank` out of `ranks`; planes are split as evenly as possible
  /// (the first nplanes % ranks ranks get one more). Every rank needs at least 2 planes.
  SlabPartition(Extents global, int rank = 0, int ranks = 1) : m_global(global), m_rank(rank), m_ranks(ranks) {
    validate(global, "karman::SlabPartition");
    m_axis = global.slab_axis();
    const int planes = global.extent(m_axis);
    require_in_range("karman::SlabPartition", "ranks", ranks, 1, planes / 2 > 0 ? planes / 2 : 1);
    require_in_range("karman::SlabPartition", "rank", rank, 0, ranks - 1);
    const int base = planes / ranks, extra = planes % ranks;
    m_owned_begin = rank * base + (rank < extra ? rank : extra);
    m_owned_planes = base + (rank < extra ? 1 : 0);
    if (m_owned_planes < 2) {
      throw Error("karman::SlabPartition: " + std::to_string(planes) + " planes along the slab axis give rank " +
                  std::to_string(rank) + " only " + std::to_string(m_owned_planes) +
                  " plane(s); each rank needs at least 2 (use at most " + std::to_string(planes / 2) + " ranks)");
    }
    m_local = global;
    (m_axis == 2 ? m_local.nz : m_local.ny) = m_owned_planes + 2;
  }

  /// The whole box all ranks share.
  const Extents& global() const { return m_global; }
  /// This rank's box including its two halo planes.
  const Extents& local() const { return m_local; }
  /// Slab axis: Extents::slab_axis() of the global box, 2 (z) for 3D, 1 (y) for 2D.
  int axis() const { return m_axis; }
  /// This rank's index and the number of ranks.
  int rank() const { return m_rank; }
  int ranks() const { return m_ranks; }
  /// First owned plane in global plane numbering, and the number of owned planes.
  int owned_begin() const { return m_owned_begin; }
  int owned_planes() const { return m_owned_planes; }
  /// Voxels in one plane across the slab axis: Extents::plane_size() of the global box.
  index_t plane_size() const { return m_global.plane_size(); }
  /// Voxels of the local box (owned and halo).
  index_t local_size() const { return m_local.size(); }

  /// Voxel ranges of the five groups; halo_lo is local plane 0, owned planes are 1..owned.
  GroupTable groups() const {
    const index_t p = plane_size();
    const index_t n = m_owned_planes;
    GroupTable t;
    t.ranges[static_cast<int>(Group::halo_lo)] = {0, p};
    t.ranges[static_cast<int>(Group::shared_lo)] = {p, 2 * p};
    t.ranges[static_cast<int>(Group::interior)] = {2 * p, n * p};
    t.ranges[static_cast<int>(Group::shared_hi)] = {n * p, (n + 1) * p};
    t.ranges[static_cast<int>(Group::halo_hi)] = {(n + 1) * p, (n + 2) * p};
    return t;
  }
  /// Range of one group.
  VoxelRange group(Group g) const { return groups()[g]; }
  /// All owned voxels (shared_lo, interior and shared_hi together).
  VoxelRange owned() const { return {plane_size(), (m_owned_planes + 1) * plane_size()}; }

 private:
  Extents m_global;
  Extents m_local;
  int m_rank = 0;
  int m_ranks = 1;
  int m_axis = 2;
  int m_owned_begin = 0;
  int m_owned_planes = 0;
};

}  // namespace karman
