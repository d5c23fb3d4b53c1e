#pragma once
/// \file slab_halo_plan.hpp
/// The halo plan of a slab partition: which components of its shared planes go to which of
/// its two neighbours, and into which halo planes they arrive.

#include <karman/core/dense/partition.hpp>
#include <karman/core/halo_plan.hpp>

namespace karman {

/// Components `upward` of the upper shared group go to the upper neighbour, `downward` of the
/// lower shared group to the lower one; they arrive in the neighbours' halo groups facing back
/// (a rank receives `upward` into its lower halo, `downward` into its upper halo). `groups` is
/// any table of a slab's groups cut along `axis`: a SlabPartition's, or the block planes of a
/// block-sparse or refined level grid; its groups are found by role and direction.
inline HaloPlan slab_halo_plan(const GroupTable& groups, int axis, ComponentRange upward, ComponentRange downward) {
  const NeighbourStep lo = NeighbourStep::along(axis, -1), hi = NeighbourStep::along(axis, +1);
  return {{{groups.at(GroupRole::shared, hi), upward, hi}, {groups.at(GroupRole::shared, lo), downward, lo}},
          {{groups.at(GroupRole::halo, lo), upward, lo}, {groups.at(GroupRole::halo, hi), downward, hi}}};
}

/// The same on a slab partition's groups.
inline HaloPlan slab_halo_plan(const SlabPartition& p, ComponentRange upward, ComponentRange downward) {
  return slab_halo_plan(p.groups(), p.axis(), upward, downward);
}

}  // namespace karman
