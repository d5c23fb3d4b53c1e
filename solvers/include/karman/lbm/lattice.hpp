#pragma once
/// \file lattice.hpp
/// What every lattice descriptor provides, and the direction order all of them share.
///
/// Directions are numbered lexicographically by (c along the slab axis, then the next axis
/// down, then x), each component in {-1, 0, +1}. Two things follow for free:
///  - populations moving towards the lower neighbour (c_slab < 0) come first, those staying
///    in the plane next, those moving up last, so what crosses a slab boundary is one
///    contiguous component range (Meneghin & Mahmoud §III, the Disaggregated send/receive blocks);
///  - the list is point-symmetric, so opposite(i) = Q - 1 - i and the rest population is the
///    middle one.

#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// Lattice speed of sound squared, c_s^2 = 1/3, for every lattice here.
inline constexpr double cs2 = 1.0 / 3.0;

/// Shared part of the descriptors; each descriptor adds c(i, axis) and w(i).
template <int Dim, int Q_, int CrossingCount>
struct LatticeBase {
  static constexpr int D = Dim;        ///< spatial dimension
  static constexpr int Q = Q_;         ///< number of populations
  static constexpr int rest = Q_ / 2;  ///< index of the rest population
  /// Slab axis (z in 3D, y in 2D), the axis the domain is cut along for MPI: Extents::slab_axis()
  /// of a box of dimension D, known at compile time for the kernels.
  static constexpr int slab_axis = Extents{2, 2, Dim == 3 ? 2 : 1}.slab_axis();
  /// Number of populations crossing a slab boundary in each direction.
  static constexpr int crossing = CrossingCount;

  /// Index of the population moving opposite to i.
  KOKKOS_INLINE_FUNCTION static constexpr int opposite(int i) { return Q_ - 1 - i; }
  /// Populations moving towards the lower neighbour (c_slab = -1).
  static constexpr ComponentRange towards_lower() { return {0, CrossingCount}; }
  /// Populations moving towards the upper neighbour (c_slab = +1).
  static constexpr ComponentRange towards_upper() { return {Q_ - CrossingCount, Q_}; }
};

}  // namespace karman::lbm
