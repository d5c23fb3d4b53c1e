#pragma once
/// \file halo_pack.hpp
/// Gather and scatter kernels between a field and a contiguous message buffer, written once
/// against the field accessor so they serve every layout (Karrer's MPI recipe: "pack buffers
/// and ISend them"). Functors, not lambdas: CUDA forbids extended lambdas in private members.

#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace karman::comm::detail {

/// Where component q of voxel v sits in a message buffer:
/// offset + (v - first_voxel) * voxel_stride + (q - component_base) * component_stride.
struct BufferMap {
  index_t offset = 0;            ///< first value of the message in the buffer
  index_t first_voxel = 0;       ///< voxel stored first
  index_t voxel_stride = 1;      ///< distance between consecutive voxels
  index_t component_stride = 1;  ///< distance between consecutive components
  int component_base = 0;        ///< component stored first
  int component_begin = 0;       ///< first component moved
  int component_end = 0;         ///< one past the last component moved

  /// Buffer index of component `comp` of voxel `voxel`.
  KOKKOS_INLINE_FUNCTION index_t index(index_t voxel, int comp) const {
    return offset + (voxel - first_voxel) * voxel_stride + (comp - component_base) * component_stride;
  }
};

/// Copies the mapped components of each voxel from the field into the buffer.
template <class FieldType, class BufferView>
struct PackHalo {
  FieldType field;
  BufferView buffer;
  BufferMap map;

  KOKKOS_INLINE_FUNCTION void operator()(index_t voxel) const {
    for (int q = map.component_begin; q < map.component_end; ++q) buffer(map.index(voxel, q)) = field(voxel, q);
  }
};

/// Copies the mapped components of each voxel from the buffer into the field.
template <class FieldType, class BufferView>
struct UnpackHalo {
  FieldType field;
  BufferView buffer;
  BufferMap map;

  KOKKOS_INLINE_FUNCTION void operator()(index_t voxel) const {
    for (int q = map.component_begin; q < map.component_end; ++q) field(voxel, q) = buffer(map.index(voxel, q));
  }
};

/// Launches PackHalo over `voxels` on `space`.
template <class ExecutionSpace, class FieldType, class BufferView>
void pack_halo(const ExecutionSpace& space, const FieldType& field, const BufferView& buffer, VoxelRange voxels,
               const BufferMap& map) {
  Kokkos::parallel_for("karman::comm::pack_halo",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>>(space, voxels.begin, voxels.end),
                       PackHalo<FieldType, BufferView>{field, buffer, map});
}

/// Launches UnpackHalo over `voxels` on `space`.
template <class ExecutionSpace, class FieldType, class BufferView>
void unpack_halo(const ExecutionSpace& space, const FieldType& field, const BufferView& buffer, VoxelRange voxels,
                 const BufferMap& map) {
  Kokkos::parallel_for("karman::comm::unpack_halo",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>>(space, voxels.begin, voxels.end),
                       UnpackHalo<FieldType, BufferView>{field, buffer, map});
}

}  // namespace karman::comm::detail
