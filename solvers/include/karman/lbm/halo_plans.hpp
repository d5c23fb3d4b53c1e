#pragma once
/// \file halo_plans.hpp
/// Which populations a dense or block-sparse grid exchanges with its neighbours before each step
/// kind: the halo plans of a lattice on a slab (a block-sparse grid's planes of blocks too) or a
/// Cartesian block.

#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/dense/slab_halo_plan.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/lbm/aa_return_plan.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/velocity_set.hpp>

namespace karman::lbm {

/// Halo plans of lattice L for each step kind (which populations cross which side), on a slab
/// (keyed by its lower and upper neighbours) or a Cartesian block (keyed by its up to 26 face,
/// edge and corner neighbours, only the populations that cross each: cartesian_halo_plan.hpp).
template <class L>
struct HaloPlans {
  /// AB pull, on the source lattice before each step: post-collision populations leave through
  /// the shared planes into the neighbours' halos.
  static HaloPlan ab(const SlabPartition& p) { return slab_halo_plan(p, L::towards_upper(), L::towards_lower()); }
  /// AA, before an odd step: the even step stored upward-moving populations in their opposite
  /// (downward) slots, so the downward block of the upper shared plane goes up, and vice versa.
  static HaloPlan aa_odd(const SlabPartition& p) { return slab_halo_plan(p, L::towards_lower(), L::towards_upper()); }
  /// AA, before an even step: what the odd step wrote into the halo returns to its owner.
  static HaloPlan aa_even(const SlabPartition& p) { return reversed(aa_odd(p)); }
  /// The plan exchanged before a step of kind k.
  static HaloPlan of(StepKind k, const SlabPartition& p) {
    return k == StepKind::ab_pull ? ab(p) : k == StepKind::aa_odd ? aa_odd(p) : aa_even(p);
  }
  /// The same three plans on a block: AB sends each population towards where it moves, AA's
  /// odd step the opposite slots, its even step returns what the odd step pushed (only what
  /// this block wrote: aa_return_plan.hpp).
  static HaloPlan of(StepKind k, const CartesianPartition& p) {
    if (k == StepKind::aa_even) return aa_return_plan(p, velocity_set<L>());
    return cartesian_halo_plan(p, velocity_set<L>(), k == StepKind::aa_odd);
  }
};

}  // namespace karman::lbm
