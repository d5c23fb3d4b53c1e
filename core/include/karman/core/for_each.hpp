#pragma once
/// \file for_each.hpp
/// Launch a functor over one group (or any voxel range) on one execution-space instance, so a
/// time step can run interior and shared voxels as separate kernels (seed 000 Fig. 4b).

#include <karman/core/group.hpp>
#include <karman/core/partition.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace karman {

/// Calls `functor(voxel)` for every voxel of `range` on `space`; asynchronous like any launch.
template <class ExecutionSpace, class Functor>
void for_each(const std::string& label, const VoxelRange& range, const ExecutionSpace& space, const Functor& functor) {
  if (range.empty()) return;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>>(space, range.begin, range.end), functor);
}

/// Calls `functor(voxel)` for every voxel of group `g` of `partition` on `space`.
template <class ExecutionSpace, class Functor>
void for_each(const std::string& label, const SlabPartition& partition, Group g, const ExecutionSpace& space,
              const Functor& functor) {
  for_each(label, partition.group(g), space, functor);
}

}  // namespace karman
