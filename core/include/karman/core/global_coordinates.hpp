#pragma once
/// \file global_coordinates.hpp
/// Global coordinates of a rank's local voxels, on the host and inside kernels: what a stencil
/// needs to place a source, a wall or an initial condition, whatever the partition numbers its
/// voxels by (x fastest on a slab, by cells on a Cartesian block).

#include <karman/core/cartesian/cartesian_neighbours.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/extents.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>

namespace karman {

/// Global coordinates of local voxels: the partition's local numbering (`Numbering`, Extents
/// for a slab, CartesianTopology for a block) plus the global coordinates of local (0, 0, 0).
/// Trivially copyable, so a kernel captures it by value. Halo voxels get the coordinates of the
/// cells they copy, unwrapped: -1 below the box, n past it.
template <class Numbering>
struct GlobalCoordinates {
  Numbering numbering{};
  int origin[3] = {};

  /// Global coordinate of local voxel `voxel` along `axis`.
  KOKKOS_INLINE_FUNCTION int operator()(index_t voxel, int axis) const {
    return numbering.coordinate(voxel, axis) + origin[axis];
  }
  /// Global (x, y, z) of local voxel `voxel`.
  KOKKOS_INLINE_FUNCTION Kokkos::Array<int, 3> operator()(index_t voxel) const {
    return {{(*this)(voxel, 0), (*this)(voxel, 1), (*this)(voxel, 2)}};
  }
};

namespace detail {
template <class Numbering>
GlobalCoordinates<Numbering> global_coordinates(const Numbering& numbering, const std::array<int, 3>& origin) {
  GlobalCoordinates<Numbering> g;
  g.numbering = numbering;
  for (int a = 0; a < 3; ++a) g.origin[a] = origin[std::size_t(a)];
  return g;
}
}  // namespace detail

/// Global coordinates of a slab's local voxels.
inline GlobalCoordinates<Extents> global_coordinates(const SlabPartition& p) {
  return detail::global_coordinates(p.local(), p.origin());
}
/// Global coordinates of a Cartesian block's local voxels.
inline GlobalCoordinates<CartesianTopology> global_coordinates(const CartesianPartition& p) {
  return detail::global_coordinates(CartesianTopology::of(p), p.origin());
}

}  // namespace karman
