#pragma once
/// \file cartesian_halo_plan.hpp
/// The halo plan of a Cartesian block (cartesian_partition.hpp): towards each face, edge and
/// corner neighbour only the populations whose velocity crosses into it, so D3Q19 has no corner
/// messages and D3Q27 one population per corner (Meneghin & Mahmoud §III, generalised from the
/// slab's two faces to a block's 26 neighbours).

#include <karman/core/cartesian_partition.hpp>
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

/// The exchange of a block before a step: towards every neighbour s, population slot q of each
/// shared cell facing s (CartesianPartition::shared_groups_towards) for every q in
/// crossing_populations(s); from s, the same slots of the halo group s, for the populations
/// crossing from s. Transfers are one population each, slots outermost, so the blocks of a
/// neighbour's message follow one another in the same order on both sides (the receiver's halo
/// group holds the sender's shared cells in their order). `opposite_slots` swaps what moves
/// each way: AA's odd step, before which the even step left every population in its opposite
/// slot (slab_halo_plan.hpp); its even step moves the same blocks back (reversed(), halo_plan.hpp).
inline HaloPlan cartesian_halo_plan(const CartesianPartition& p, const std::vector<std::array<int, 3>>& velocities,
                                    bool opposite_slots = false) {
  HaloPlan plan;
  for (const NeighbourStep& s : crossing_neighbours(p, velocities)) {
    const std::vector<int> sent = crossing_populations(velocities, opposite_slots ? s.opposite() : s);
    const std::vector<int> received = crossing_populations(velocities, opposite_slots ? s : s.opposite());
    const std::vector<int> cells = p.shared_groups_towards(s);
    for (const int q : sent)
      for (const int g : cells) plan.sends.push_back({g, {q, q + 1}, s});
    for (const int q : received) plan.receives.push_back({p.halo_group(s), {q, q + 1}, s});
  }
  return plan;
}

}  // namespace karman
