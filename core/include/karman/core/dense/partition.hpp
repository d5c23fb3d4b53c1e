#pragma once
/// \file partition.hpp
/// The part of a global box one rank owns, cut into slabs along the slowest axis with a
/// halo on each side, one plane (the LBM stencil radius) unless asked for more (Meneghin &
/// Mahmoud §III, §VI-A).

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>

#include <array>
#include <string>

namespace karman {

/// A rank's slab of a global box, cut along Extents::slab_axis() (z for 3D boxes, y for 2D
/// boxes), so a plane is what a neighbour exchange moves. Local voxels are numbered x fastest
/// over the local box, which holds the owned planes plus `halo_width` halo planes below and
/// above. Its five groups are whole planes, consecutive in memory: halo towards lower() |
/// shared towards lower() | interior | shared towards upper() | halo towards upper(), each
/// halo and shared group `halo_width` planes thick (1, the LBM stencil radius, by default).
class SlabPartition {
 public:
  /// Owned slab of `rank` out of `ranks`; planes are split as evenly as possible (the first
  /// nplanes % ranks ranks get one more). Every rank needs at least 2 * halo_width planes, so
  /// that its lower and upper shared planes are distinct.
  ///
  /// Boundaries, whatever the rank count: the in-plane axes always wrap (Neighbours); along the
  /// slab axis `periodic` (the default, as before a slab knew it) wraps the box through the halo
  /// planes, which an exchange fills from the neighbouring slab (this one on a single rank);
  /// otherwise the first slab's lower and the last slab's upper halo planes are closed: no
  /// exchange writes them, they hold what the user writes there (fill_closed_halos,
  /// closed_halos.hpp), zero in a Field Karman allocated. A box closed along another axis is a
  /// CartesianPartition's (any grid, 1×1×N included).
  SlabPartition(Extents global, int rank = 0, int ranks = 1, int halo_width = 1, bool periodic = true)
      : m_global(global), m_rank(rank), m_ranks(ranks), m_width(halo_width), m_periodic(periodic) {
    validate(global, "karman::SlabPartition");
    m_axis = global.slab_axis();
    const int planes = global.extent(m_axis);
    require_in_range("karman::SlabPartition", "halo_width", halo_width, 1, planes / 2 > 0 ? planes / 2 : 1);
    const int min_planes = 2 * halo_width;
    require_in_range("karman::SlabPartition", "ranks", ranks, 1, planes / min_planes > 0 ? planes / min_planes : 1);
    require_in_range("karman::SlabPartition", "rank", rank, 0, ranks - 1);
    const int base = planes / ranks, extra = planes % ranks;
    m_owned_begin = rank * base + (rank < extra ? rank : extra);
    m_owned_planes = base + (rank < extra ? 1 : 0);
    if (m_owned_planes < min_planes) {
      throw Error("karman::SlabPartition: " + std::to_string(planes) + " planes along the slab axis give rank " +
                  std::to_string(rank) + " only " + std::to_string(m_owned_planes) +
                  " plane(s); each rank needs at least " + std::to_string(min_planes) + " (use at most " +
                  std::to_string(planes / min_planes) + " ranks)");
    }
    m_local = global;
    (m_axis == 2 ? m_local.nz : m_local.ny) = m_owned_planes + 2 * m_width;
    const index_t p = plane_size(), w = m_width;
    m_groups.add(GroupRole::halo, lower(), w * p);
    m_groups.add(GroupRole::shared, lower(), w * p);
    m_groups.add(GroupRole::interior, {}, (m_owned_planes - 2 * w) * p);
    m_groups.add(GroupRole::shared, upper(), w * p);
    m_groups.add(GroupRole::halo, upper(), w * p);
  }

  /// The whole box all ranks share.
  const Extents& global() const { return m_global; }
  /// This rank's box including its halo planes.
  const Extents& local() const { return m_local; }
  /// Slab axis: Extents::slab_axis() of the global box, 2 (z) for 3D, 1 (y) for 2D.
  int axis() const { return m_axis; }
  /// Planes in each halo (and each shared) group.
  int halo_width() const { return m_width; }
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

  /// The neighbour below (one step down the slab axis) and above.
  NeighbourStep lower() const { return NeighbourStep::along(m_axis, -1); }
  NeighbourStep upper() const { return NeighbourStep::along(m_axis, +1); }
  /// Both neighbours, lower first.
  std::array<NeighbourStep, 2> neighbours() const { return {lower(), upper()}; }
  /// Whether the box wraps along the slab axis (see the constructor).
  bool periodic() const { return m_periodic; }
  /// True when the halo towards `step` lies past a closed end of the box: the first slab's
  /// lower() or the last slab's upper() along a slab axis that is not periodic(). No exchange
  /// fills it; the user does (fill_closed_halos).
  bool closed(NeighbourStep step) const {
    return !m_periodic && ((step == lower() && m_rank == 0) || (step == upper() && m_rank == m_ranks - 1));
  }

  /// The five groups in memory order (see the class comment).
  const GroupTable& groups() const { return m_groups; }
  /// Index of the halo group copying `neighbour`, and of the shared group it reads.
  int halo_group(NeighbourStep neighbour) const { return m_groups.at(GroupRole::halo, neighbour); }
  int shared_group(NeighbourStep neighbour) const { return m_groups.at(GroupRole::shared, neighbour); }
  /// Index of the interior group.
  int interior_group() const { return m_groups.at(GroupRole::interior); }
  /// Voxels of group g.
  VoxelRange group(int g) const { return m_groups.range(g); }
  /// Global coordinates of local coordinates (0, 0, 0): the first owned plane less the halo
  /// along the slab axis, 0 along the others.
  std::array<int, 3> origin() const {
    std::array<int, 3> o{0, 0, 0};
    o[std::size_t(m_axis)] = m_owned_begin - m_width;
    return o;
  }
  /// Local coordinates of local voxel `v`, and the local voxel at local coordinates (x, y, z):
  /// x fastest over local().
  std::array<int, 3> coordinates(index_t v) const {
    return {m_local.coordinate(v, 0), m_local.coordinate(v, 1), m_local.coordinate(v, 2)};
  }
  index_t index(int x, int y, int z) const { return m_local.index(x, y, z); }
  /// All owned voxels (the shared and interior groups together).
  VoxelRange owned() const { return {index_t(m_width) * plane_size(), (m_owned_planes + m_width) * plane_size()}; }

 private:
  Extents m_global;
  Extents m_local;
  int m_rank = 0;
  int m_ranks = 1;
  int m_width = 1;
  bool m_periodic = true;
  int m_axis = 2;
  int m_owned_begin = 0;
  int m_owned_planes = 0;
  GroupTable m_groups;
};

}  // namespace karman
