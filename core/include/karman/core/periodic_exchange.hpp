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

 private:
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

  /// Components [q_to, q_to + qs) of voxels [to, to + n) take [q_from, q_from + qs) of [from, from + n).
  void copy(const FieldType& field, int q_from, index_t from, int q_to, index_t to, index_t n, int qs) const {
    const index_t shift = to - from;
    Kokkos::parallel_for(
        "karman::periodic_halo_copy",
        Kokkos::RangePolicy<execution_space, Kokkos::IndexType<index_t>>(m_space, from, from + n),
        KOKKOS_LAMBDA(index_t v) {
          for (int k = 0; k < qs; ++k) field(v + shift, q_to + k) = field(v, q_from + k);
        });
  }

  execution_space m_space;
};

}  // namespace karman
