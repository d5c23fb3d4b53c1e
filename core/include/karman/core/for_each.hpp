#pragma once
/// \file for_each.hpp
/// Launch a functor over one group (or any voxel range) on one execution-space instance, so a
/// time step can run interior and shared voxels as separate kernels (Meneghin & Mahmoud Fig. 4b).

#include <karman/core/dense/partition.hpp>
#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace karman {

/// Calls `functor(voxel)` for every voxel of `range` on `space`; asynchronous like any launch.
/// `Properties` are further Kokkos policy properties, e.g. `Kokkos::LaunchBounds<256, 1>`.
///
/// The launch is hinted light-weight: on CUDA the functor then travels as a kernel argument
/// (up to 4 KiB) instead of through Kokkos' constant-memory buffer, which a functor over
/// 512 bytes gets by default and which the host must not overwrite while the previous kernel
/// still reads it: back-to-back launches of the large LBM functors ran faster so
/// (docs/performance.md). Other backends ignore the hint.
template <class... Properties, class ExecutionSpace, class Functor>
void for_each(const std::string& label, const VoxelRange& range, const ExecutionSpace& space, const Functor& functor) {
  if (range.empty()) return;
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>, Properties...> policy(space, range.begin,
                                                                                              range.end);
  Kokkos::parallel_for(
      label, Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight), functor);
}

/// Calls `functor(voxel)` for every voxel of group `g` (an index into partition.groups()) on
/// `space`; any partition with groups (SlabPartition, CartesianPartition).
template <class... Properties, class Partition, class ExecutionSpace, class Functor>
void for_each(const std::string& label, const Partition& partition, int g, const ExecutionSpace& space,
              const Functor& functor) {
  for_each<Properties...>(label, partition.group(g), space, functor);
}

}  // namespace karman
