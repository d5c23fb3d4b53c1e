#pragma once
/// \file closed_halos.hpp
/// What a stencil reads past a closed side of the box (issue 55): the halo voxels there, which
/// no exchange writes and the user fills, with a value (a Dirichlet wall) by one call.

#include <karman/core/group.hpp>
#include <karman/core/neighbour_step.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

/// Sets every component of every halo voxel of `partition` (a SlabPartition or a
/// CartesianPartition) that lies past a closed side of the box (partition.closed(step): a
/// non-periodic axis, cut or not) to `value`, on `space`, asynchronously like any launch. Halo
/// groups towards a neighbour, periodic or another rank, are left to the exchange. Call it
/// after allocating a field and after anything that writes those halos: the kernels of a
/// stencil update owned voxels only and exchanges skip closed sides, so the value stays
/// through the run. A stencil on any process grid then reads `value` past the box's walls,
/// bitwise the same as on one rank.
template <class Partition, class FieldType, class ExecutionSpace = typename FieldType::execution_space>
void fill_closed_halos(const FieldType& field, const Partition& partition, typename FieldType::value_type value,
                       const ExecutionSpace& space = ExecutionSpace()) {
  const int components = field.components();
  for (int i = 0; i < NeighbourStep::count; ++i) {
    const NeighbourStep step = NeighbourStep::from_index(i);
    if (!partition.closed(step)) continue;
    const VoxelRange halo = partition.group(partition.halo_group(step));
    Kokkos::parallel_for(
        "karman::fill_closed_halos",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>>(space, halo.begin, halo.end),
        KOKKOS_LAMBDA(index_t v) {
          for (int q = 0; q < components; ++q) field(v, q) = value;
        });
  }
}

}  // namespace karman
