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

}  // namespace karman::io
