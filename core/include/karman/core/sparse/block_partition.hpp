#pragma once
/// \file block_partition.hpp
/// Cuts of a block lattice's planes among ranks along the slab axis (z in 3D, y in 2D), made
/// apart from any grid so that several grids share them: the levels of a refined grid take the
/// cuts of the coarsest level, scaled to their own planes, so a coarse block and its children
/// never lie on two ranks (Meneghin & Mahmoud §VI-A's slabs; issue 53's shared cuts). The cuts
/// balance the work of each plane the caller gives, for a refined grid the voxel updates of one
/// coarse step (`refined_plane_work`): a block of level l takes 2^(levels - 1 - l) steps a
/// coarse step.

#include <karman/core/error.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace karman {

/// The planes of a block lattice divided among ranks: rank r owns the planes [cut(r), cut(r + 1)),
/// at least two each when several share them (one shared plane towards each neighbour).
class BlockPartition {
 public:
  /// Cuts `plane_work.size()` planes among `ranks` ranks so that each rank's work (the sum of
  /// its planes' entries) is as even as whole planes allow: each cut lies at the plane boundary
  /// where the work before it comes closest to its share of the total (planes without work go
  /// to the rank whose even share of planes they are). Throws karman::Error for
  /// fewer than one rank, more ranks than half the planes (two each), or negative work.
  BlockPartition(const std::vector<double>& plane_work, int ranks) : m_cuts(std::size_t(ranks > 0 ? ranks : 0) + 1) {
    const int planes = int(plane_work.size());
    if (ranks < 1) throw Error("karman::BlockPartition: " + std::to_string(ranks) + " ranks; accepted: 1 or more");
    if (ranks > 1 && planes < 2 * ranks) {
      throw Error("karman::BlockPartition: " + std::to_string(ranks) + " ranks share " + std::to_string(planes) +
                  " block planes, and each needs at least 2; accepted: at most " + std::to_string(planes / 2) +
                  " ranks");
    }
    std::vector<double> before(std::size_t(planes) + 1, 0.0);  // work of the planes before each boundary
    for (int p = 0; p < planes; ++p) {
      if (!(plane_work[std::size_t(p)] >= 0)) {
        throw Error("karman::BlockPartition: plane " + std::to_string(p) + " has work " +
                    std::to_string(plane_work[std::size_t(p)]) + "; accepted: 0 or more");
      }
      before[std::size_t(p) + 1] = before[std::size_t(p)] + plane_work[std::size_t(p)];
    }
    const double total = before.back();
    m_cuts.front() = 0;
    m_cuts.back() = planes;
    const int least = ranks > 1 ? 2 : 1;
    for (int r = 1; r < ranks; ++r) {
      const double share = total * r / ranks, even = double(planes) * r / ranks;
      // Room for this rank's two planes before the cut, and two for each rank after it.
      const int lo = m_cuts[std::size_t(r) - 1] + least, hi = planes - least * (ranks - r);
      // The closest work share; among equals (planes without work) the closest even plane count.
      const auto distance = [&](int c) {
        return std::make_pair(std::abs(before[std::size_t(c)] - share), std::abs(c - even));
      };
      int best = lo;
      for (int c = lo + 1; c <= hi; ++c) {
        if (distance(c) < distance(best)) best = c;
      }
      m_cuts[std::size_t(r)] = best;
    }
    m_work.resize(std::size_t(ranks));
    for (int r = 0; r < ranks; ++r)
      m_work[std::size_t(r)] =
          before[std::size_t(m_cuts[std::size_t(r) + 1])] - before[std::size_t(m_cuts[std::size_t(r)])];
  }

  /// Ranks sharing the planes.
  int ranks() const { return int(m_work.size()); }
  /// Planes of the lattice the cuts were made on.
  int planes() const { return m_cuts.back(); }
  /// The planes rank `rank` owns on the lattice the cuts were made on, or on a lattice
  /// `refinements` times finer (2^refinements planes for each).
  OwnedBlockPlanes owned(int rank, int refinements = 0) const {
    check_rank(rank);
    const int begin = m_cuts[std::size_t(rank)], end = m_cuts[std::size_t(rank) + 1];
    return {begin << refinements, (end - begin) << refinements};
  }
  /// The work of rank `rank`'s planes.
  double work(int rank) const {
    check_rank(rank);
    return m_work[std::size_t(rank)];
  }

 private:
  void check_rank(int rank) const {
    if (rank < 0 || rank >= ranks()) {
      throw Error("karman::BlockPartition: rank " + std::to_string(rank) + "; accepted: 0 to " +
                  std::to_string(ranks() - 1));
    }
  }

  std::vector<int> m_cuts;  ///< rank r owns [m_cuts[r], m_cuts[r + 1])
  std::vector<double> m_work;
};

/// The voxel updates of one coarse step in each plane of the coarsest level's block lattice
/// along the slab axis (z in 3D, y in 2D): every leaf of level l counts its voxels 2^(levels -
/// 1 - l) times, in the coarse plane that holds it. Overlap blocks only gather and are not
/// counted.
template <int Dim>
std::vector<double> refined_plane_work(const RefinedLevels<Dim>& levels) {
  constexpr int axis = Dim - 1;
  const int top = levels.levels() - 1;
  std::vector<double> work(std::size_t(levels.block_lattice(top).extent(axis)), 0.0);
  double block_voxels = 1;
  for (int a = 0; a < Dim; ++a) block_voxels *= levels.block_edge();
  for (int l = 0; l <= top; ++l) {
    const double steps = double(1 << (top - l));
    for (const LevelBlock& b : levels.leaves(l)) work[std::size_t(b.at[axis] >> (top - l))] += steps * block_voxels;
  }
  return work;
}

}  // namespace karman
