#pragma once
/// \file aa_return_plan.hpp
/// The exchange before AA's even step on a Cartesian block (Bailey et al.'s AA pattern): the
/// populations the odd step pushed into the halo go back to the owners of those voxels. It is
/// LBM knowledge (which slots a streaming step wrote), so it lives with the solver, built on
/// the core's block plans (cartesian_halo_plan.hpp).

#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/halo_plan.hpp>

#include <array>
#include <string>
#include <vector>

namespace karman::lbm {

/// AA's exchange before an even step on a block: what the odd step pushed into the halo returns
/// to the owners of those voxels, as reversed(cartesian_halo_plan(p, velocities, true)) would,
/// but only the (halo cell, population) pairs this block's odd step wrote. Population q in a
/// halo cell towards s comes from the cell one step -c_q away; along an axis s does not move
/// along, that source lies past this block's first or last layer when the cell is in that layer
/// and c_q points inwards, in the halo of another neighbour, which pushes q into the same voxel
/// and returns it by its own message. Returning the copy this block holds there as well would
/// race with that message. On a slab no such cell exists (the in-plane axes wrap), and the two
/// plans agree. Needs halo_width 1 (a first or last layer is one voxel thick, so a cell's
/// voxels all share the answer).
inline HaloPlan aa_return_plan(const CartesianPartition& p, const std::vector<std::array<int, 3>>& velocities) {
  if (p.halo_width() != 1) {
    throw Error("karman::lbm::aa_return_plan: halo_width " + std::to_string(p.halo_width()) + " out of range [1, 1]");
  }
  // Whether the block facing `towards` from cell `cls` wrote population `c` there.
  const auto written = [](const std::array<int, 3>& cls, const std::array<int, 3>& c, NeighbourStep towards) {
    for (int a = 0; a < 3; ++a) {
      if (towards.d[a] != 0) continue;
      if (cls[a] == CartesianPartition::first_layer && c[a] > 0) return false;
      if (cls[a] == CartesianPartition::last_layer && c[a] < 0) return false;
    }
    return true;
  };
  HaloPlan plan;
  for (const NeighbourStep& s : crossing_neighbours(p, velocities)) {
    // To s: the slots of our halo cells that we wrote; from s: the slots of our shared cells
    // that s wrote into its halo (from s's side, the cells of its halo facing us hold the same
    // classes along the axes s does not move along).
    for (const int q : crossing_populations(velocities, s))
      for (const CartesianPartition::Cell& cell : p.cells_towards(s, true))
        if (written(cell.classes, velocities[std::size_t(q)], s))
          plan.sends.push_back({cell.group, {q, q + 1}, s, cell.voxels});
    for (const int q : crossing_populations(velocities, s.opposite()))
      for (const CartesianPartition::Cell& cell : p.cells_towards(s, false))
        if (written(cell.classes, velocities[std::size_t(q)], s)) plan.receives.push_back({cell.group, {q, q + 1}, s});
  }
  return plan;
}

}  // namespace karman::lbm
