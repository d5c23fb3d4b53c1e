#pragma once
/// \file halo_plan.hpp
/// What one halo exchange moves, independent of how (MPI, or a local copy for a periodic
/// single rank): blocks named by (group, component range) and keyed by the neighbour they go
/// to or come from, so a slab's two neighbours and a Cartesian block's 26 use one plan type.
/// With the Disaggregated layout each transfer is one contiguous block (Meneghin & Mahmoud §III).

#include <karman/core/exchange_stats.hpp>
#include <karman/core/group.hpp>

#include <utility>
#include <vector>

namespace karman {

/// One block sent to, or received from, one neighbour.
struct HaloTransfer {
  int group = 0;              ///< whose voxels: an index into the field's GroupTable (shared groups
                              ///< for the sends of an AB step, halo groups for its receives)
  ComponentRange components;  ///< which components (populations crossing towards the neighbour)
  NeighbourStep neighbour;    ///< which neighbour
  /// The voxels of the group moved, when not all of them (one cell of a Cartesian block's halo
  /// group, cartesian_halo_plan.hpp); begin < 0: the whole group.
  VoxelRange voxels{-1, -1};
};

/// The voxels transfer `t` moves in a field built on `groups`.
inline VoxelRange transfer_voxels(const HaloTransfer& t, const GroupTable& groups) {
  return t.voxels.begin < 0 ? groups.range(t.group) : t.voxels;
}

/// Everything one exchange moves. A send to neighbour s pairs with that neighbour's receive
/// from s.opposite(); the pair moves the same component range.
struct HaloPlan {
  std::vector<HaloTransfer> sends;     ///< blocks this rank sends
  std::vector<HaloTransfer> receives;  ///< blocks this rank receives
};

/// The plan that moves the same blocks back to where they came from: sends and receives swapped
/// (AA's even step returns what its odd step wrote into the halo).
inline HaloPlan reversed(HaloPlan plan) {
  std::swap(plan.sends, plan.receives);
  return plan;
}

/// Starts and completes a HaloPlan on a field; implemented by a local periodic copy
/// (karman/core/periodic_exchange.hpp) and by MPI (Karman::comm). start() may return before
/// the data has moved; finish() returns once every receive has landed in the field.
template <class FieldType>
class HaloExchanger {
 public:
  virtual ~HaloExchanger() = default;
  /// Begins moving `plan` on `field` (posts receives and sends where the backend allows).
  virtual void start(const FieldType& field, const HaloPlan& plan) = 0;
  /// Waits until every block of the last started plan has arrived.
  virtual void finish() = 0;

  /// True when blocks travel between ranks (MPI); false for a local copy, which the
  /// counters below leave at zero.
  virtual bool between_ranks() const { return false; }
  /// True when device memory is handed to the transport directly (GPU-aware MPI).
  virtual bool gpu_aware() const { return false; }
  /// This rank's line of the run summary from the counters so far.
  virtual RankCommStats stats() const { return {}; }
  /// Starts the counters afresh (e.g. after warm-up steps).
  virtual void reset_counters() {}
};

}  // namespace karman
