#pragma once
/// \file cartesian_halo_plan.hpp
/// The halo plan of a Cartesian block (cartesian_partition.hpp): towards each face, edge and
/// corner neighbour only the populations whose velocity crosses into it, so D3Q19 has no corner
/// messages and D3Q27 one population per corner (Meneghin & Mahmoud §III, generalised from the
/// slab's two faces to a block's 26 neighbours).

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/halo_plan.hpp>

#include <array>
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
/// its even step returns what the odd step pushed (the solver layer's lbm/aa_return_plan.hpp).
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

}  // namespace karman
