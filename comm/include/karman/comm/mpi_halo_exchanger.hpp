#pragma once
/// \file mpi_halo_exchanger.hpp
/// A HaloPlan carried out with non-blocking MPI between the neighbours of a slab or Cartesian
/// decomposition (Meneghin & Mahmoud §VI-A, Fig. 4b;
/// Karrer's MPI recipe): start() posts every receive, then every send, and returns, so the
/// caller computes interior voxels while messages fly; finish() waits and completes the copies
/// back. Which messages a plan becomes is its MessagePlan (message_plan.hpp), built once per
/// plan and field mapping; this file carries them out.

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/comm_stats.hpp>
#include <karman/comm/device_memory.hpp>
#include <karman/comm/exchange_method.hpp>
#include <karman/comm/gpu_aware.hpp>
#include <karman/comm/halo_pack.hpp>
#include <karman/comm/message_plan.hpp>
#include <karman/comm/mpi_datatype.hpp>
#include <karman/comm/plan_check.hpp>
#include <karman/comm/slab_decomposition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/instance_order.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/profiling_region.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace karman::comm {

/// MPI halo exchange of a FieldType between the neighbours of a decomposition (a
/// SlabDecomposition's two, a CartesianDecomposition's up to 26); transfers find their peer rank
/// by the neighbour step they name.
///
/// A plan's messages follow the layout (MessagePlan, message_plan.hpp: Table III's counts).
///
/// The first start() of a plan checks, once, that every message's two sides list the same
/// values in the same order (plan_check.hpp): all ranks start their first exchange of a plan
/// together, and a plan the neighbours disagree on throws a CollectiveError on every rank.
///
/// Device memory the host cannot read goes to MPI directly when MPI is GPU-aware
/// (GpuAwareMode), otherwise through a pinned host mirror: one asynchronous copy per message
/// before the sends, one per message back after the receives.
template <class FieldType>
class MpiHaloExchanger final : public HaloExchanger<FieldType> {
 public:
  using value_type = typename FieldType::value_type;
  using layout_type = typename FieldType::layout_type;
  using memory_space = typename FieldType::memory_space;
  using execution_space = typename FieldType::execution_space;
  /// Host memory device data is staged in when MPI is not GPU-aware.
  using staging_space = typename DeviceMemoryTraits<memory_space>::staging_space;
  /// How this layout's transfers become messages.
  static constexpr ExchangeMethod method = exchange_method_v<layout_type>;

  /// Collective over the decomposition's communicator (duplicated, so these messages never
  /// match anyone else's). Device copies and pack kernels run on `space`, and start() orders
  /// the exchange after the work already queued there and on the default instance: queue the
  /// kernels that write the shared voxels on either, or fence them first. The solver gives it an
  /// instance of its own, high-priority where the backend has stream priorities
  /// (solver_dispatch.hpp), so that packing and unpacking do not wait for the interior kernel's
  /// grid; finish() returns once its copies and unpacking are done. `pack_always` packs
  /// every transfer into one buffer whatever the layout: the classical "SoA + pack" exchange
  /// that Meneghin & Mahmoud Fig. 6 compares the disaggregated layout with.
  template <class Decomposition>
  explicit MpiHaloExchanger(const Decomposition& decomposition, GpuAwareMode gpu_aware = GpuAwareMode::automatic,
                            execution_space space = execution_space(), bool pack_always = false)
      : m_pack_always(pack_always),
        m_space(space),
        m_peers(peers_of(decomposition)),
        m_global(decomposition.partition().global()),
        m_partition_groups(decomposition.partition().groups()),
        m_global_id(detail::global_ids(decomposition.partition())),
        m_rank(decomposition.rank()),
        m_neighbours(decomposition.neighbours()),
        m_gpu_aware(resolve_gpu_aware(gpu_aware, DeviceMemoryTraits<memory_space>::api)),
        m_staged(!DeviceMemoryTraits<memory_space>::host_accessible && !m_gpu_aware) {
    MPI_Comm_dup(decomposition.comm(), &m_comm);
  }

  /// Waits for an exchange still in flight (MPI must not write into freed memory), then frees
  /// the plans' derived datatypes and the duplicated communicator.
  ~MpiHaloExchanger() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (m_in_flight) MPI_Waitall(int(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
    m_plans.clear();
    MPI_Comm_free(&m_comm);
  }

  MpiHaloExchanger(const MpiHaloExchanger&) = delete;
  MpiHaloExchanger& operator=(const MpiHaloExchanger&) = delete;

  /// Packs and stages what needs it, then posts every receive of `plan` and every send.
  /// Orders the packing after the work queued on the exchanger's instance and the default one
  /// (what wrote the values to send), then waits once, for that work and the packing, not for
  /// all of Kokkos: kernels on other instances run on. The receives are posted after that wait,
  /// since a GPU-aware MPI may write a halo as soon as its receive is posted, and the kernels
  /// queued before the exchange may still read it.
  void start(const FieldType& field, const HaloPlan& plan) override {
    if (m_in_flight) throw std::logic_error("karman::comm::MpiHaloExchanger::start: previous exchange not finished");
    const auto started = clock::now();
    ProfilingRegion region("karman::comm::halo_start");
    // The exchanger's instance may be another stream than the default one, whose kernels wrote the values to send.
    order_after(m_space, execution_space());
    m_active = prepare(field, plan);
    m_field = field;
    const MessagePlan<FieldType>& p = *m_plans[m_active];
    // Queued behind that work, not after a host round trip: on a GPU the packing follows the
    // kernels it waits for directly, and the host wakes once, when all of it is done.
    detail::move_pieces<true>(m_space, m_field, m_buffer, p.pack_table());
    if (m_staged)
      for (const Message& m : p.sends()) Kokkos::deep_copy(m_space, staging_run(m), device_run(m));
    compat::fence(m_space, "karman::comm::MpiHaloExchanger::start: packed and staged");
    m_requests.clear();
    for (const Message& m : p.receives()) {
      m_requests.emplace_back();
      MPI_Irecv(mpi_pointer(m), mpi_count(m), mpi_type(m), m.peer, m.tag, m_comm, &m_requests.back());
    }
    for (const Message& m : p.sends()) {
      m_requests.emplace_back();
      MPI_Isend(mpi_pointer(m), mpi_count(m), mpi_type(m), m.peer, m.tag, m_comm, &m_requests.back());
    }
    m_counters.messages_sent += index_t(p.sends().size());
    m_counters.values_sent += p.values_sent();
    for (int k = 0; k < neighbour_kinds; ++k) {
      m_counters.messages_sent_by_kind[k] += p.messages_sent_by_kind()[std::size_t(k)];
      m_counters.values_sent_by_kind[k] += p.values_sent_by_kind()[std::size_t(k)];
    }
    m_counters.messages_received += index_t(p.receives().size());
    m_counters.values_received += p.values_received();
    m_in_flight = true;
    m_start_returned = clock::now();
    m_counters.start_seconds += seconds(started, m_start_returned);
  }

  /// Waits for every message, copies staged data back and unpacks buffered receives; returns
  /// once every receive is in the field (fenced on the exchanger's instance).
  void finish() override {
    if (!m_in_flight) throw std::logic_error("karman::comm::MpiHaloExchanger::finish: no exchange started");
    const auto called = clock::now();
    m_counters.overlap_seconds += seconds(m_start_returned, called);
    ProfilingRegion region("karman::comm::halo_finish");
    MPI_Waitall(int(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
    m_in_flight = false;
    m_counters.wait_seconds += seconds(called, clock::now());
    const MessagePlan<FieldType>& p = *m_plans[m_active];
    bool device_work = false;
    if (m_staged) {
      for (const Message& m : p.receives()) Kokkos::deep_copy(m_space, device_run(m), staging_run(m));
      device_work = !p.receives().empty();
    }
    detail::move_pieces<false>(m_space, m_field, m_buffer, p.unpack_table());
    device_work = device_work || p.unpack_table().count > 0;
    if (device_work) compat::fence(m_space, "karman::comm::MpiHaloExchanger::finish: unpacked");
    m_field = FieldType();
    ++m_counters.exchanges;
    m_counters.finish_seconds += seconds(called, clock::now());
  }

  /// Blocks travel between ranks.
  bool between_ranks() const override { return true; }
  /// True when device pointers are handed to MPI directly (device memory and GPU-aware MPI).
  bool gpu_aware() const override { return m_gpu_aware; }
  /// How transfers become messages in this exchanger (packed when asked to pack always).
  ExchangeMethod effective_method() const { return m_pack_always ? ExchangeMethod::packed : method; }
  /// Steps with a neighbour (0, 1 or 2 for a slab, up to 26 for a Cartesian block).
  int neighbours() const { return m_neighbours; }
  /// Running totals since construction or the last reset_counters().
  const ExchangeCounters& counters() const { return m_counters; }
  /// Starts the totals afresh (e.g. after warm-up steps).
  void reset_counters() override { m_counters = ExchangeCounters(); }
  /// This rank's line of the run summary.
  RankCommStats stats() const override { return summarize(m_counters, m_rank, m_neighbours); }

 private:
  using clock = std::chrono::steady_clock;
  using buffer_view = Kokkos::View<value_type*, memory_space>;
  using staging_view = Kokkos::View<value_type*, staging_space>;
  using device_run_view = Kokkos::View<value_type*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using staging_run_view = Kokkos::View<value_type*, staging_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  static double seconds(clock::time_point from, clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
  }

  /// Peer rank of every neighbour step (MPI_PROC_NULL where there is none).
  template <class Decomposition>
  static std::array<int, NeighbourStep::count> peers_of(const Decomposition& d) {
    std::array<int, NeighbourStep::count> peers{};
    for (int i = 0; i < NeighbourStep::count; ++i) peers[i] = d.neighbour(NeighbourStep::from_index(i));
    return peers;
  }

  /// Index of the message plan of (field's mapping, plan), building it on first use.
  std::size_t prepare(const FieldType& field, const HaloPlan& plan) {
    for (std::size_t i = 0; i < m_plans.size(); ++i)
      if (m_plans[i]->serves(field, plan)) return i;
    // Voxels are compared by global position where the field is laid out on the partition,
    // by count only where it is not (a block-sparse grid's groups of blocks).
    detail::check_plan_agrees(m_comm, m_peers, plan, field.groups(),
                              field.groups() == m_partition_groups ? m_global_id : detail::GlobalIdOf(), m_global);
    const auto& p =
        *m_plans.emplace_back(std::make_unique<MessagePlan<FieldType>>(field, plan, m_peers, effective_method()));
    if (p.buffer_values() > index_t(m_buffer.extent(0)))
      m_buffer = buffer_view("karman::comm::halo_buffer", p.buffer_values());
    if (m_staged && p.staging_values() > index_t(m_staging.extent(0)))
      m_staging = staging_view("karman::comm::halo_staging", p.staging_values());
    return m_plans.size() - 1;
  }

  /// First value of the message in the field or the buffer (device memory for GPU fields).
  value_type* device_pointer(const Message& m) const {
    return m.in_field ? m_field.data() + m.field_offset : m_buffer.data() + m.buffer_offset;
  }
  /// First value of the message in the pinned host mirror.
  value_type* staging_pointer(const Message& m) const { return m_staging.data() + m.staging_offset; }
  /// The message's values where the field or buffer holds them.
  device_run_view device_run(const Message& m) const {
    return device_run_view(device_pointer(m), std::size_t(m.count));
  }
  /// The message's values in the pinned host mirror.
  staging_run_view staging_run(const Message& m) const {
    return staging_run_view(staging_pointer(m), std::size_t(m.count));
  }
  /// What MPI reads or writes: the mirror when staged, else the field or buffer itself.
  value_type* mpi_pointer(const Message& m) const { return m_staged ? staging_pointer(m) : device_pointer(m); }
  /// The count and datatype MPI is given: one derived datatype, or `count` values.
  static int mpi_count(const Message& m) { return m.type != MPI_DATATYPE_NULL ? 1 : int(m.count); }
  static MPI_Datatype mpi_type(const Message& m) {
    return m.type != MPI_DATATYPE_NULL ? m.type : mpi_datatype<value_type>();
  }

  bool m_pack_always = false;
  execution_space m_space;
  MPI_Comm m_comm = MPI_COMM_NULL;
  std::array<int, NeighbourStep::count> m_peers{};  ///< by NeighbourStep::index()
  Extents m_global;                                 ///< the decomposition's global box
  GroupTable m_partition_groups;                    ///< the groups of this rank's part
  detail::GlobalIdOf m_global_id;                   ///< global voxel of a local voxel of the partition
  int m_rank = 0;
  int m_neighbours = 0;
  bool m_gpu_aware = false;
  bool m_staged = false;
  /// AA alternates two plans and AB exchanges two lattices of one mapping, so a short list
  /// covers a run.
  std::vector<std::unique_ptr<MessagePlan<FieldType>>> m_plans;
  std::size_t m_active = 0;
  FieldType m_field;
  buffer_view m_buffer;
  staging_view m_staging;
  std::vector<MPI_Request> m_requests;
  bool m_in_flight = false;
  clock::time_point m_start_returned{};
  ExchangeCounters m_counters;
};

}  // namespace karman::comm
