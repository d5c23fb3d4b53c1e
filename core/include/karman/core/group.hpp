#pragma once
/// \file group.hpp
/// Voxel groups of a dense partition, in memory order (Meneghin & Mahmoud §III, Fig. 5b):
/// halo_lo | shared_lo | interior | shared_hi | halo_hi.

#include <karman/core/extents.hpp>

#include <array>
#include <string_view>

namespace karman {

/// Role of a set of voxels. *shared* voxels are owned voxels whose stencil reads the halo;
/// *interior* voxels read owned data only; *halo* voxels are copies of a neighbour's.
enum class Group : int { halo_lo = 0, shared_lo = 1, interior = 2, shared_hi = 3, halo_hi = 4 };

/// Number of groups of a dense partition.
inline constexpr int group_count = 5;

/// All groups in memory order.
inline constexpr std::array<Group, group_count> all_groups = {Group::halo_lo, Group::shared_lo, Group::interior,
                                                              Group::shared_hi, Group::halo_hi};

/// Name of a group as used in messages and output.
constexpr std::string_view name(Group g) {
  constexpr std::array<std::string_view, group_count> names = {"halo_lo", "shared_lo", "interior", "shared_hi",
                                                               "halo_hi"};
  return names[static_cast<int>(g)];
}

/// A half-open range [begin, end) of linear voxel indices.
struct VoxelRange {
  index_t begin = 0;  ///< first voxel
  index_t end = 0;    ///< one past the last voxel

  /// Number of voxels in the range.
  KOKKOS_INLINE_FUNCTION index_t size() const { return end - begin; }
  /// True when the range holds no voxel.
  KOKKOS_INLINE_FUNCTION bool empty() const { return end <= begin; }

  friend bool operator==(const VoxelRange& a, const VoxelRange& b) { return a.begin == b.begin && a.end == b.end; }
};

/// A half-open range [begin, end) of field components (populations for LBM).
struct ComponentRange {
  int begin = 0;  ///< first component
  int end = 0;    ///< one past the last component

  /// Number of components in the range.
  int size() const { return end - begin; }
};

/// The voxel range of every group; groups are consecutive and cover [0, total).
struct GroupTable {
  std::array<VoxelRange, group_count> ranges{};  ///< indexed by Group

  /// Range of one group.
  const VoxelRange& operator[](Group g) const { return ranges[static_cast<int>(g)]; }
  /// Voxels in all groups together.
  index_t total() const { return ranges[group_count - 1].end; }
  /// A table whose only non-empty group is the interior: a box with no halo.
  static GroupTable single(index_t voxels) {
    GroupTable t;
    t.ranges[static_cast<int>(Group::interior)] = {0, voxels};
    for (int g = static_cast<int>(Group::interior) + 1; g < group_count; ++g) t.ranges[g] = {voxels, voxels};
    return t;
  }

  friend bool operator==(const GroupTable& a, const GroupTable& b) { return a.ranges == b.ranges; }
};

}  // namespace karman
