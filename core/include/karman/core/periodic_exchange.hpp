#pragma once
/// \file periodic_exchange.hpp
/// A single rank that is periodic towards its neighbours is its own neighbour on each side:
/// an exchange is a copy between its shared and halo groups, done by one kernel per run of
/// values through the field accessor, so it works for every layout.

#include <karman/core/halo_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace karman {

/// Local copy exchange for one rank periodic towards every neighbour its plans name.
template <class FieldType>
class PeriodicSelfExchanger final : public HaloExchanger<FieldType> {
 public:
  using execution_space = typename FieldType::execution_space;

  explicit PeriodicSelfExchanger(execution_space space = execution_space()) : m_space(space) {}

  /// Carries out every message of `plan` as MPI would between two ranks: the values this rank
  /// sends towards s, in plan order and component-major within each transfer, land in the ones
  /// it receives from s.opposite(), in theirs (plan_check.hpp's order). A block's plan lists a
  /// face as several shared cells on one side and one halo group on the other
  /// (block_halo_plan), so values are matched by their place in the message; a send and a
  /// receive of the same shape (a slab's) are one kernel over all their components. Throws
  /// std::logic_error when the two sides of a message differ in size.
  void start(const FieldType& field, const HaloPlan& plan) override {
    // A slab's plans (the LBM's, every step) pair off transfer by transfer: one kernel each, and
    // no message bookkeeping allocated on the host.
    if (paired(field, plan, false)) {
      paired(field, plan, true);
      return;
    }
    for (int i = 0; i < NeighbourStep::count; ++i) {
      const NeighbourStep to = NeighbourStep::from_index(i);
      const std::vector<HaloTransfer> out = towards(plan.sends, to, field.groups()),
                                      in = towards(plan.receives, to.opposite(), field.groups());
      if (values(out, field) != values(in, field)) {
        throw std::logic_error("karman::PeriodicSelfExchanger: the sends to " + to_string(to) + " hold " +
                               std::to_string(values(out, field)) + " values, the receives from " +
                               to_string(to.opposite()) + " " + std::to_string(values(in, field)));
      }
      // Place in the message: transfer, component within it, voxel within that component.
      std::size_t a = 0, b = 0;
      int qa = 0, qb = 0;
      index_t va = 0, vb = 0;
      while (a < out.size()) {
        const VoxelRange from = transfer_voxels(out[a], field.groups()), into = transfer_voxels(in[b], field.groups());
        const int qs_from = out[a].components.size(), qs_into = in[b].components.size();
        if (qa == 0 && va == 0 && qb == 0 && vb == 0 && from.size() == into.size() && qs_from == qs_into) {
          copy(field, out[a].components.begin, from.begin, in[b].components.begin, into.begin, from.size(), qs_from);
          ++a, ++b;
          continue;
        }
        const index_t n = std::min(from.size() - va, into.size() - vb);
        copy(field, out[a].components.begin + qa, from.begin + va, in[b].components.begin + qb, into.begin + vb, n, 1);
        advance(a, qa, va, n, qs_from, from.size());
        advance(b, qb, vb, n, qs_into, into.size());
      }
    }
  }
  /// Copies are ordered on the instance; later kernels on it see them.
  void finish() override {}

  /// Components [q_to, q_to + qs) of voxels [to, to + n) take [q_from, q_from + qs) of [from, from + n).
  /// Public because nvcc refuses a device lambda in a private or protected member function.
  void copy(const FieldType& field, int q_from, index_t from, int q_to, index_t to, index_t n, int qs) const {
    const index_t shift = to - from;
    Kokkos::parallel_for(
        "karman::periodic_halo_copy",
        Kokkos::RangePolicy<execution_space, Kokkos::IndexType<index_t>>(m_space, from, from + n),
        KOKKOS_LAMBDA(index_t v) {
          for (int k = 0; k < qs; ++k) field(v + shift, q_to + k) = field(v, q_from + k);
        });
  }

 private:
  /// True when towards every step the sends and the receives from the opposite step pair off in
  /// plan order, each pair of one shape (components and voxels): the message order then copies
  /// each send into its pair, which `copy_pairs` does.
  bool paired(const FieldType& field, const HaloPlan& plan, bool copy_pairs) const {
    const GroupTable& groups = field.groups();
    for (int i = 0; i < NeighbourStep::count; ++i) {
      const NeighbourStep to = NeighbourStep::from_index(i);
      std::size_t a = next(plan.sends, 0, to, groups), b = next(plan.receives, 0, to.opposite(), groups);
      while (a < plan.sends.size() || b < plan.receives.size()) {
        if (a == plan.sends.size() || b == plan.receives.size()) return false;
        const HaloTransfer &send = plan.sends[a], &receive = plan.receives[b];
        const VoxelRange from = transfer_voxels(send, groups), into = transfer_voxels(receive, groups);
        if (from.size() != into.size() || send.components.size() != receive.components.size()) return false;
        if (copy_pairs) {
          copy(field, send.components.begin, from.begin, receive.components.begin, into.begin, from.size(),
               send.components.size());
        }
        a = next(plan.sends, a + 1, to, groups);
        b = next(plan.receives, b + 1, to.opposite(), groups);
      }
    }
    return true;
  }
  /// Index of the first transfer from `i` on towards `step` that moves something, or the count.
  static std::size_t next(const std::vector<HaloTransfer>& transfers, std::size_t i, NeighbourStep step,
                          const GroupTable& groups) {
    while (i < transfers.size() && !(transfers[i].neighbour == step && transfers[i].components.size() > 0 &&
                                     !transfer_voxels(transfers[i], groups).empty()))
      ++i;
    return i;
  }
  /// The transfers towards (or from) `step` that move something, in plan order.
  static std::vector<HaloTransfer> towards(const std::vector<HaloTransfer>& transfers, NeighbourStep step,
                                           const GroupTable& groups) {
    std::vector<HaloTransfer> out;
    for (const HaloTransfer& t : transfers)
      if (t.neighbour == step && t.components.size() > 0 && !transfer_voxels(t, groups).empty()) out.push_back(t);
    return out;
  }
  /// Moves a place in a message (transfer t, component q within it, voxel v within that
  /// component) n values on, the transfer having `qs` components over `voxels` voxels.
  static void advance(std::size_t& t, int& q, index_t& v, index_t n, int qs, index_t voxels) {
    if ((v += n) < voxels) return;
    v = 0;
    if (++q < qs) return;
    q = 0;
    ++t;
  }
  /// Values the transfers move (a message's length).
  static index_t values(const std::vector<HaloTransfer>& transfers, const FieldType& field) {
    index_t n = 0;
    for (const HaloTransfer& t : transfers) n += transfer_voxels(t, field.groups()).size() * t.components.size();
    return n;
  }

  execution_space m_space;
};

}  // namespace karman
