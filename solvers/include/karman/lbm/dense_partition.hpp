#pragma once
/// \file dense_partition.hpp
/// What the dense solver (solver_core.hpp) needs of the partition kind it runs on, so that one
/// solver source and one stream-collide kernel serve slabs (partition.hpp) and Cartesian blocks
/// (cartesian_partition.hpp): the neighbour accessor its kernels are instantiated with, the
/// layout its fields take, and where its owned voxels lie in the global box.

#include <karman/core/cartesian/cartesian_neighbours.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/layout_disaggregated.hpp>
#include <karman/lbm/flow_solver.hpp>

#include <array>
#include <type_traits>

namespace karman::lbm {

/// Traits of a partition kind; specialised for SlabPartition and CartesianPartition.
template <class Partition>
struct DensePartition;

/// A slab: whole planes, numbered x fastest; the kernels' default accessor.
template <>
struct DensePartition<SlabPartition> {
  /// The neighbour accessor of the kernels on a lattice of dimension D.
  template <int D>
  using neighbours = Neighbours<D>;
  /// The layout of the population fields for the solver layout `Layout`: Disaggregated over
  /// the slab's five groups, whose lookup is the cheapest.
  template <class Layout, int D>
  using field_layout = std::conditional_t<std::is_same_v<Layout, Disaggregated>, SlabDisaggregated, Layout>;
  /// What the accessor is built from.
  static Extents topology(const SlabPartition& p) { return p.local(); }
  /// Where the owned voxels lie: whole planes, the grid 1×1×N (3D) or 1×N (2D).
  static OwnedBox owned_box(const SlabPartition& p) {
    OwnedBox box;
    box.global = p.global();
    box.extents = p.global();
    const auto axis = std::size_t(p.axis());
    box.begin[axis] = p.owned_begin();
    (axis == 2 ? box.extents.nz : box.extents.ny) = p.owned_planes();
    box.grid[axis] = p.ranks();
    box.local_voxels = p.local_size();
    return box;
  }
};

/// A Cartesian block: faces, edges and corners each one group (Meneghin & Mahmoud §III, Fig.
/// 5b, generalised to blocks). Disaggregated fields hold its up to 53 groups (17 in 2D).
template <>
struct DensePartition<CartesianPartition> {
  template <int D>
  using neighbours = CartesianNeighbours<D>;
  template <class Layout, int D>
  using field_layout =
      std::conditional_t<std::is_same_v<Layout, Disaggregated>, BasicDisaggregated<D == 2 ? 17 : 53>, Layout>;
  static CartesianTopology topology(const CartesianPartition& p) { return CartesianTopology::of(p); }
  static OwnedBox owned_box(const CartesianPartition& p) {
    OwnedBox box;
    box.global = p.global();
    box.begin = {p.owned_begin(0), p.owned_begin(1), p.owned_begin(2)};
    box.extents = {p.owned(0), p.owned(1), p.owned(2)};
    box.grid = p.dims();
    box.local_voxels = p.local_size();
    return box;
  }
};

}  // namespace karman::lbm
