#pragma once
/// \file halo_plan.hpp
/// What one halo exchange moves, independent of how (MPI, or a local copy for a periodic
/// single rank): blocks named by (group, component range) and the neighbour along the slab
/// axis. With the Disaggregated layout each transfer is one contiguous block (Meneghin & Mahmoud §III).

#include <karman/core/exchange_stats.hpp>
#include <karman/core/group.hpp>

#include <vector>

namespace karman {

/// Neighbour along the slab axis.
enum class Side : int { lower = -1, upper = +1 };

/// The other side.
constexpr Side opposite(Side s) { return s == Side::lower ? Side::upper : Side::lower; }

/// One block sent to, or received from, the neighbour on `side`.
struct HaloTransfer {
  Group group;                ///< whose voxels (shared_* for sends of an AB step, halo_* for receives)
  ComponentRange components;  ///< which components (populations crossing the slab boundary)
  Side side;                  ///< which neighbour
};

/// Everything one exchange moves. A send to the upper neighbour pairs with that neighbour's
/// receive from its lower side; the pair moves the same component range.
struct HaloPlan {
  std::vector<HaloTransfer> sends;     ///< blocks this rank sends
  std::vector<HaloTransfer> receives;  ///< blocks this rank receives
};

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
