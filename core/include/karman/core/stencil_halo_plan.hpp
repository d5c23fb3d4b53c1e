#pragma once
/// \file stencil_halo_plan.hpp
/// The halo plan of any field on a slab or a Cartesian block, for a stencil code rather than
/// LBM populations: every component of every halo voxel the stencil reads, from one call.

#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/dense/slab_halo_plan.hpp>
#include <karman/core/error.hpp>
#include <karman/core/halo_plan.hpp>

#include <algorithm>
#include <vector>

namespace karman {

/// Which halo voxels a stencil reads: across faces only (a 7-point or 5-point stencil), or
/// across faces, edges and corners too (a 27-point or 9-point stencil).
enum class StencilReach : int { faces = 0, faces_edges_corners = 1 };

/// All `components` of the shared voxels towards every neighbour `reach` names, into the
/// neighbours' halo groups (block_halo_plan, so both sides of a message list it in one order).
/// Edge and corner halos are left alone with StencilReach::faces, and so are the halos past a
/// closed side (CartesianPartition::closed), which the user fills (fill_closed_halos): a plan
/// with no transfer there is one a local periodic copy (PeriodicSelfExchanger) carries out on
/// a single rank as MPI does on many.
inline HaloPlan stencil_halo_plan(const CartesianPartition& p, int components, StencilReach reach) {
  require_in_range("karman::stencil_halo_plan", "components", components, 1, 1 << 20);
  std::vector<NeighbourStep> steps;
  for (const NeighbourStep& s : p.steps())
    if ((reach == StencilReach::faces_edges_corners || s.axes() == 1) && !p.closed(s)) steps.push_back(s);
  const auto all = [components](NeighbourStep) { return ComponentRanges{{0, components}}; };
  return block_halo_plan(p, steps, all, all);
}

/// The same on a slab: its two neighbours are faces, so `reach` changes nothing (the in-plane
/// axes have no halo); a closed end (SlabPartition::closed) has no transfer.
inline HaloPlan stencil_halo_plan(const SlabPartition& p, int components, StencilReach /*reach*/) {
  require_in_range("karman::stencil_halo_plan", "components", components, 1, 1 << 20);
  HaloPlan plan = slab_halo_plan(p, {0, components}, {0, components});
  const auto closed = [&p](const HaloTransfer& t) { return p.closed(t.neighbour); };
  plan.sends.erase(std::remove_if(plan.sends.begin(), plan.sends.end(), closed), plan.sends.end());
  plan.receives.erase(std::remove_if(plan.receives.begin(), plan.receives.end(), closed), plan.receives.end());
  return plan;
}

}  // namespace karman
