#pragma once
/// \file slab_halo_plan.hpp
/// The halo plan of a slab partition: which components of its shared planes go to which of
/// its two neighbours, and into which halo planes they arrive.

#include <karman/core/dense/partition.hpp>
#include <karman/core/halo_plan.hpp>

namespace karman {

/// Components `upward` of the upper shared group go to the upper neighbour, `downward` of the
/// lower shared group to the lower one; they arrive in the neighbours' halo groups facing back
/// (a rank receives `upward` into its lower halo, `downward` into its upper halo).
inline HaloPlan slab_halo_plan(const SlabPartition& p, ComponentRange upward, ComponentRange downward) {
  const NeighbourStep lo = p.lower(), hi = p.upper();
  return {{{p.shared_group(hi), upward, hi}, {p.shared_group(lo), downward, lo}},
          {{p.halo_group(lo), upward, lo}, {p.halo_group(hi), downward, hi}}};
}

}  // namespace karman
