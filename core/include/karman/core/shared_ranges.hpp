#pragma once
/// \file shared_ranges.hpp
/// The owned voxels that must wait for the halo exchange, as the fewest index ranges: what a
/// stencil code runs after finish() while the interior ran between start() and finish().

#include <karman/core/group.hpp>

#include <array>

namespace karman {

/// The shared voxels of `partition` (a SlabPartition or a CartesianPartition) as two ranges:
/// below and above the interior in memory. Both partitions lay the shared groups out around
/// the interior (lower shared groups | interior | upper shared groups), so a block's 26 shared
/// cells cost two kernel launches, as a slab's two shared groups do.
template <class Partition>
std::array<VoxelRange, 2> shared_ranges(const Partition& partition) {
  const VoxelRange owned = partition.owned();
  const VoxelRange interior = partition.group(partition.interior_group());
  return {VoxelRange{owned.begin, interior.begin}, VoxelRange{interior.end, owned.end}};
}

}  // namespace karman
