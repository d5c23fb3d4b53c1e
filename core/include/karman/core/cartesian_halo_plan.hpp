#pragma once
/// \file cartesian_halo_plan.hpp
/// The halo plan of a Cartesian block (cartesian_partition.hpp): towards each face, edge and
/// corner neighbour only the populations whose velocity crosses into it, so D3Q19 has no corner
/// messages and D3Q27 one population per corner (Meneghin & Mahmoud §III, generalised from the
/// slab's two faces to a block's 26 neighbours).

#include <karman/core/cartesian_partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/halo_plan.hpp>

#include <array>
#include <string>
#include <vector>

namespace karman {

/// The populations (indices into `velocities`) that move from a block into its neighbour `step`
/// away: those whose velocity matches the step along every axis the step moves along.
inline std::vector<int> crossing_populations(const std::vector<std::array<int, 3>>& velocities, NeighbourStep step) {
  std::vector<int> out;
  if (step.none()) return out;
  for (int i = 0; i < int(velocities.size()); ++i) {
    bool crosses = true;
    for (int a = 0; a < 3; ++a)
      if (step.d[a] != 0 && velocities[i][a] != step.d[a]) crosses = false;
    if (crosses) out.push_back(i);
  }
  return out;
}

/// The steps of `p` that some population crosses: the neighbours a block exchanges with, one
/// message each way (D3Q19 on a 3D block: 6 faces and 12 edges; D3Q27: all 26; D2Q9: 8).
inline std::vector<NeighbourStep> crossing_neighbours(const CartesianPartition& p,
                                                      const std::vector<std::array<int, 3>>& velocities) {
  std::vector<NeighbourStep> out;
  for (const NeighbourStep& s : p.steps())
    if (!crossing_populations(velocities, s).empty()) out.push_back(s);
  return out;
}

/// Component ranges moved across one face, edge or corner, in message order.
using ComponentRanges = std::vector<ComponentRange>;

/// The plan every halo plan of a block is built from: towards each neighbour s of `steps`, the
/// ranges `sent(s)` of the shared cells facing s (CartesianPartition::shared_groups_towards),
/// range after range, cell after cell; from s, the ranges `received(s)` into the halo group s.
/// Both sides then list a neighbour's message in one order, component-major within each cell,
/// cells in the order the receiver's halo group holds them: a range of one component arrives
/// as one transfer over the whole halo group, a wider one cell by cell, since component-major
/// over the whole group would interleave the cells differently from the sender (the check in
/// MpiHaloExchanger::start refuses such a plan).
template <class Sent, class Received>
HaloPlan block_halo_plan(const CartesianPartition& p, const std::vector<NeighbourStep>& steps, Sent&& sent,
                         Received&& received) {
  HaloPlan plan;
  for (const NeighbourStep& s : steps) {
    const std::vector<int> cells = p.shared_groups_towards(s);
    for (const ComponentRange& r : sent(s))
      for (const int g : cells) plan.sends.push_back({g, r, s});
    const std::vector<CartesianPartition::Cell> halo = p.cells_towards(s, true);
    for (const ComponentRange& r : received(s)) {
      if (r.size() == 1 || halo.size() <= 1) {
        plan.receives.push_back({p.halo_group(s), r, s});
      } else {
        for (const CartesianPartition::Cell& c : halo) plan.receives.push_back({p.halo_group(s), r, s, c.voxels});
      }
    }
  }
  return plan;
}

/// The exchange of a block before a step: towards every neighbour s, population slot q of each
/// shared cell facing s for every q in crossing_populations(s); from s, the same slots of the
/// halo group s, for the populations crossing from s. Transfers are one population each, slots
/// outermost (block_halo_plan). `opposite_slots` swaps what moves each way: AA's odd step,
/// before which the even step left every population in its opposite slot (slab_halo_plan.hpp);
/// its even step moves the same blocks back (reversed(), halo_plan.hpp).
inline HaloPlan cartesian_halo_plan(const CartesianPartition& p, const std::vector<std::array<int, 3>>& velocities,
                                    bool opposite_slots = false) {
  const auto slots = [&](NeighbourStep s) {
    ComponentRanges out;
    for (const int q : crossing_populations(velocities, s)) out.push_back({q, q + 1});
    return out;
  };
  return block_halo_plan(
      p, crossing_neighbours(p, velocities), [&](NeighbourStep s) { return slots(opposite_slots ? s.opposite() : s); },
      [&](NeighbourStep s) { return slots(opposite_slots ? s : s.opposite()); });
}

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
inline HaloPlan cartesian_return_plan(const CartesianPartition& p, const std::vector<std::array<int, 3>>& velocities) {
  if (p.halo_width() != 1) {
    throw Error("karman::cartesian_return_plan: halo_width " + std::to_string(p.halo_width()) + " out of range [1, 1]");
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

}  // namespace karman
