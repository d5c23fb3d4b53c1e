#pragma once
/// \file periodic_exchange.hpp
/// A single rank that is periodic towards its neighbours is its own neighbour on each side:
/// an exchange is a copy between its shared and halo groups, done by one kernel per transfer
/// through the field accessor, so it works for every layout.

#include <karman/core/halo_plan.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>

namespace karman {

/// Local copy exchange for one rank periodic towards every neighbour its plans name.
template <class FieldType>
class PeriodicSelfExchanger final : public HaloExchanger<FieldType> {
 public:
  using execution_space = typename FieldType::execution_space;

  explicit PeriodicSelfExchanger(execution_space space = execution_space()) : m_space(space) {}

  /// Copies each send block into the receive block it pairs with (same group size, same components).
  void start(const FieldType& field, const HaloPlan& plan) override {
    for (const auto& send : plan.sends) {
      const HaloTransfer* receive = nullptr;
      for (const auto& r : plan.receives)
        if (r.neighbour == send.neighbour.opposite() && r.components.begin == send.components.begin) receive = &r;
      if (receive == nullptr) throw std::logic_error("karman::PeriodicSelfExchanger: a send has no matching receive");
      const VoxelRange from = transfer_voxels(send, field.groups()), to = transfer_voxels(*receive, field.groups());
      if (from.size() != to.size()) throw std::logic_error("karman::PeriodicSelfExchanger: block sizes differ");
      const index_t shift = to.begin - from.begin;
      const int q0 = send.components.begin, q1 = send.components.end;
      Kokkos::parallel_for(
          "karman::periodic_halo_copy",
          Kokkos::RangePolicy<execution_space, Kokkos::IndexType<index_t>>(m_space, from.begin, from.end),
          KOKKOS_LAMBDA(index_t v) {
            for (int q = q0; q < q1; ++q) field(v + shift, q) = field(v, q);
          });
    }
  }
  /// Copies are ordered on the instance; later kernels on it see them.
  void finish() override {}

 private:
  execution_space m_space;
};

}  // namespace karman
