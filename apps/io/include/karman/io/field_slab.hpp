#pragma once
/// \file field_slab.hpp
/// The part of the global box one rank hands to the field writer: whole planes along the slab
/// axis, as karman::SlabPartition cuts them (z in 3D, y in 2D).

#include <karman/core/extents.hpp>

#include <cstddef>
#include <vector>

namespace karman::io {

/// A read-only contiguous host array of doubles (e.g. a Kokkos host mirror's data()).
struct HostArray {
  const double* data = nullptr;  ///< first value
  std::size_t size = 0;          ///< number of values
};

/// Planes [slab_begin, slab_begin + slab_planes) of the global box along the slab axis, with one
/// array per dataset in the writer's order, each in (z, y, x) order with x fastest and holding
/// exactly slab_planes · (cells per plane) values.
struct FieldSlab {
  int slab_begin = 0;               ///< first global plane along the slab axis
  int slab_planes = 0;              ///< number of planes, at least 1
  std::vector<HostArray> datasets;  ///< one array per dataset name
};

/// The slab axis of a box: 2 (z) in 3D, 1 (y) in 2D, the slowest axis with more than one cell.
inline int slab_axis(const Extents& extents) { return extents.dimension() == 3 ? 2 : 1; }

/// Cells in one plane across the slab axis.
inline index_t plane_size(const Extents& extents) {
  return slab_axis(extents) == 2 ? index_t(extents.nx) * extents.ny : index_t(extents.nx);
}

}  // namespace karman::io
