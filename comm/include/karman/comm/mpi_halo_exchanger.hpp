#pragma once
/// \file mpi_halo_exchanger.hpp
/// A HaloPlan carried out with non-blocking MPI between the neighbours of a slab or Cartesian
/// decomposition (Meneghin & Mahmoud §VI-A, Fig. 4b;
/// Karrer's MPI recipe): start() posts every receive, then every send, and returns, so the
/// caller computes interior voxels while messages fly; finish() waits and completes the copies
/// back. How a transfer becomes messages depends on the layout, at compile time
/// (karman/comm/exchange_method.hpp); the counts that follow are Meneghin & Mahmoud Table III's.

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/comm_stats.hpp>
#include <karman/comm/device_memory.hpp>
#include <karman/comm/exchange_method.hpp>
#include <karman/comm/gpu_aware.hpp>
#include <karman/comm/halo_pack.hpp>
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
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace karman::comm {

namespace detail {
/// True when two plans name the same transfers in the same order.
inline bool same_transfers(const std::vector<HaloTransfer>& a, const std::vector<HaloTransfer>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].group != b[i].group || a[i].neighbour != b[i].neighbour ||
        a[i].components.begin != b[i].components.begin || a[i].components.end != b[i].components.end ||
        !(a[i].voxels == b[i].voxels))
      return false;
  }
  return true;
}
}  // namespace detail

/// MPI halo exchange of a FieldType between the neighbours of a decomposition (a
/// SlabDecomposition's two, a CartesianDecomposition's up to 26); transfers find their peer rank
/// by the neighbour step they name.
///
/// Messages per slab neighbour and direction (s = voxels per plane, c = crossing components):
/// Disaggregated one message of c·s values, in place; SoA c messages of s values, in place;
/// AoS one message of Q·s values (whole voxels), in place; CSoA and other layouts one packed
/// message of c·s values. A send to neighbour s pairs with that neighbour's receive from
/// s.opposite() over the same component range; tags derive from direction of travel,
/// first component and run index, so the c messages of SoA pair one to one.
///
/// A plan with several transfers towards one neighbour (a Cartesian block's shared cells and
/// single populations, cartesian_halo_plan.hpp) becomes one message per neighbour and
/// direction: in place through an MPI derived datatype listing the transfers' storage runs
/// where the layout has few runs (Disaggregated, SoA) and the field is in host memory,
/// otherwise packed by the same kernels as above (AoS, CSoA, device memory).
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
  /// the derived datatypes and the duplicated communicator.
  ~MpiHaloExchanger() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (m_in_flight) MPI_Waitall(int(m_requests.size()), m_requests.data(), MPI_STATUSES_IGNORE);
    for (Prepared& p : m_plans)
      for (std::vector<Message>* list : {&p.receives, &p.sends})
        for (Message& m : *list)
          if (m.type != MPI_DATATYPE_NULL) MPI_Type_free(&m.type);
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
    const Prepared& p = m_plans[m_active];
    // Queued behind that work, not after a host round trip: on a GPU the packing follows the
    // kernels it waits for directly, and the host wakes once, when all of it is done.
    detail::move_pieces<true>(m_space, m_field, m_buffer, p.pack_table);
    if (m_staged)
      for (const Message& m : p.sends) Kokkos::deep_copy(m_space, staging_run(m), device_run(m));
    compat::fence(m_space, "karman::comm::MpiHaloExchanger::start: packed and staged");
    m_requests.clear();
    for (const Message& m : p.receives) {
      m_requests.emplace_back();
      MPI_Irecv(mpi_pointer(m), mpi_count(m), mpi_type(m), m.peer, m.tag, m_comm, &m_requests.back());
    }
    for (const Message& m : p.sends) {
      m_requests.emplace_back();
      MPI_Isend(mpi_pointer(m), mpi_count(m), mpi_type(m), m.peer, m.tag, m_comm, &m_requests.back());
    }
    m_counters.messages_sent += index_t(p.sends.size());
    m_counters.values_sent += p.values_sent;
    for (int k = 0; k < neighbour_kinds; ++k) {
      m_counters.messages_sent_by_kind[k] += p.messages_sent_by_kind[k];
      m_counters.values_sent_by_kind[k] += p.values_sent_by_kind[k];
    }
    m_counters.messages_received += index_t(p.receives.size());
    m_counters.values_received += p.values_received;
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
    const Prepared& p = m_plans[m_active];
    bool device_work = false;
    if (m_staged) {
      for (const Message& m : p.receives) Kokkos::deep_copy(m_space, device_run(m), staging_run(m));
      device_work = !p.receives.empty();
    }
    detail::move_pieces<false>(m_space, m_field, m_buffer, p.unpack_table);
    device_work = device_work || !p.unpacks.empty();
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

  /// Runs of one transfer larger than this would not fit the tag scheme (and would make an
  /// in-place method pointless); no layout here comes near it (SoA: one run per component).
  static constexpr int max_runs_per_transfer = 32;
  /// Tag stride per first component (at most 27 components) and per direction of travel (27
  /// steps): the largest tag, 27 * 27 * 32 - 1, stays below 32767, the least MPI_TAG_UB
  /// the MPI standard allows.
  static constexpr int tag_per_component = max_runs_per_transfer;
  static constexpr int tag_per_direction = 27 * tag_per_component;
  static_assert(NeighbourStep::count * tag_per_direction - 1 <= 32767,
                "karman::comm: tags past MPI's least MPI_TAG_UB");

  /// One MPI message: where its values live in the field or the buffer, and in the staging mirror.
  struct Message {
    int peer = MPI_PROC_NULL;               ///< neighbour rank
    int tag = 0;                            ///< from direction of travel, first component and run index
    index_t count = 0;                      ///< values in the message
    bool in_field = true;                   ///< sent from or received into the field's storage itself
    index_t field_offset = 0;               ///< in_field: first value in the field's storage
    index_t buffer_offset = 0;              ///< !in_field: first value in the buffer
    index_t staging_offset = 0;             ///< staged: first value in the pinned host mirror
    MPI_Datatype type = MPI_DATATYPE_NULL;  ///< in_field: the runs of several transfers (from the field's start)
    int kind = 0;                           ///< to a face, edge or corner neighbour (NeighbourStep::axes() - 1)
  };

  /// Voxels packed into (or unpacked from) the buffer, and where their values go there.
  using Piece = detail::BufferPiece;

  /// A plan turned into messages for one group table and component count; AA alternates two
  /// plans and AB exchanges two lattices of one mapping, so a short list covers a run.
  struct Prepared {
    HaloPlan plan;
    GroupTable groups;
    int components = 0;
    std::vector<Message> receives;
    std::vector<Message> sends;
    std::vector<Piece> packs;                       ///< gathered into the buffer before the sends
    std::vector<Piece> unpacks;                     ///< scattered from the buffer after the receives
    detail::PieceTable<memory_space> pack_table;    ///< `packs` on the device, moved by one kernel
    detail::PieceTable<memory_space> unpack_table;  ///< `unpacks` on the device, moved by one kernel
    index_t values_sent = 0;
    index_t values_received = 0;
    std::array<index_t, neighbour_kinds> messages_sent_by_kind{};
    std::array<index_t, neighbour_kinds> values_sent_by_kind{};
  };

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

  /// Tag shared by a send and the receive it pairs with: a send to neighbour s and the
  /// receive from s.opposite() both travel along s.
  static int tag_of(const HaloTransfer& t, bool receive, int run) {
    const NeighbourStep travel = receive ? t.neighbour.opposite() : t.neighbour;
    return travel.index() * tag_per_direction + t.components.begin * tag_per_component + run;
  }

  /// Index of the prepared form of (field's mapping, plan), preparing it on first use.
  std::size_t prepare(const FieldType& field, const HaloPlan& plan) {
    for (std::size_t i = 0; i < m_plans.size(); ++i) {
      const Prepared& p = m_plans[i];
      if (p.components == field.components() && p.groups == field.groups() &&
          detail::same_transfers(p.plan.sends, plan.sends) && detail::same_transfers(p.plan.receives, plan.receives))
        return i;
    }
    // Voxels are compared by global position where the field is laid out on the partition,
    // by count only where it is not (a block-sparse grid's groups of blocks).
    detail::check_plan_agrees(m_comm, m_peers, plan, field.groups(),
                              field.groups() == m_partition_groups ? m_global_id : detail::GlobalIdOf(), m_global);
    Prepared p;
    p.plan = plan;
    p.groups = field.groups();
    p.components = field.components();
    index_t buffer_size = 0, staging_size = 0;
    const auto receives = by_neighbour(plan.receives), sends = by_neighbour(plan.sends);
    // Whether transfers merge into one message per neighbour is the plan's choice, not each
    // neighbour's: a block's edge send (one population from three cells) pairs with a receive
    // of one transfer, which must not go as whole voxels.
    bool merge = false;
    for (const auto* lists : {&receives, &sends})
      for (const std::vector<HaloTransfer>& ts : *lists) merge = merge || ts.size() > 1;
    for (const std::vector<HaloTransfer>& ts : receives)
      add_messages(p.receives, p.unpacks, field, ts, merge, true, buffer_size);
    for (const std::vector<HaloTransfer>& ts : sends)
      add_messages(p.sends, p.packs, field, ts, merge, false, buffer_size);
    for (std::vector<Message>* list : {&p.receives, &p.sends}) {
      for (Message& m : *list) {
        m.staging_offset = staging_size;
        staging_size += m.count;
      }
    }
    for (const Message& m : p.sends) {
      p.values_sent += m.count;
      p.messages_sent_by_kind[m.kind] += 1;
      p.values_sent_by_kind[m.kind] += m.count;
    }
    for (const Message& m : p.receives) p.values_received += m.count;
    p.pack_table = detail::PieceTable<memory_space>(p.packs);
    p.unpack_table = detail::PieceTable<memory_space>(p.unpacks);
    if (buffer_size > index_t(m_buffer.extent(0))) m_buffer = buffer_view("karman::comm::halo_buffer", buffer_size);
    if (m_staged && staging_size > index_t(m_staging.extent(0)))
      m_staging = staging_view("karman::comm::halo_staging", staging_size);
    m_plans.push_back(std::move(p));
    return m_plans.size() - 1;
  }

  /// The transfers of a list grouped by neighbour, neighbours in order of first appearance.
  static std::vector<std::vector<HaloTransfer>> by_neighbour(const std::vector<HaloTransfer>& transfers) {
    std::vector<std::vector<HaloTransfer>> out;
    for (const HaloTransfer& t : transfers) {
      std::size_t k = 0;
      while (k < out.size() && out[k].front().neighbour != t.neighbour) ++k;
      if (k == out.size()) out.emplace_back();
      out[k].push_back(t);
    }
    return out;
  }

  /// Appends the messages of the transfers `ts` of one neighbour (none when there is no
  /// neighbour on their side) and the pieces they pack or unpack; one message when `merge`.
  void add_messages(std::vector<Message>& out, std::vector<Piece>& pieces, const FieldType& field,
                    const std::vector<HaloTransfer>& ts, bool merge, bool receive, index_t& buffer_size) const {
    const int peer = m_peers[ts.front().neighbour.index()];
    if (peer == MPI_PROC_NULL) return;
    const std::size_t first = out.size();
    add_messages_to(peer, out, pieces, field, ts, merge, receive, buffer_size);
    for (std::size_t k = first; k < out.size(); ++k) out[k].kind = ts.front().neighbour.axes() - 1;
  }

  /// add_messages() once the peer is known.
  void add_messages_to(int peer, std::vector<Message>& out, std::vector<Piece>& pieces, const FieldType& field,
                       const std::vector<HaloTransfer>& ts, bool merge, bool receive, index_t& buffer_size) const {
    const int tag = tag_of(ts.front(), receive, 0);
    if (merge) {
      // A derived datatype only where MPI reads host memory: over device memory Open MPI's CUDA
      // path moves it run by run, far slower than packed and staged (docs/performance.md,
      // Cartesian blocks on 4 GPUs), so device data is packed by a kernel, GPU-aware or not.
      if (effective_method() == ExchangeMethod::in_place && DeviceMemoryTraits<memory_space>::host_accessible) {
        out.push_back(typed(peer, tag, field, ts));
      } else {
        out.push_back(packed(peer, tag, field, ts, pieces, buffer_size));
      }
      return;
    }
    const HaloTransfer& t = ts.front();
    const VoxelRange voxels = transfer_voxels(t, field.groups());
    if (effective_method() == ExchangeMethod::packed) {
      out.push_back(packed(peer, tag, field, ts, pieces, buffer_size));
      return;
    }
    const bool widen = method == ExchangeMethod::whole_voxels;
    const std::vector<MemoryBlock> runs =
        field.blocks(voxels, widen ? ComponentRange{0, field.components()} : t.components);
    if (int(runs.size()) > max_runs_per_transfer || (widen && runs.size() != 1)) {
      throw std::logic_error("karman::comm::MpiHaloExchanger: layout " + std::string(layout_type::name) + " gives " +
                             std::to_string(runs.size()) + " storage runs for group " +
                             field.groups().describe(t.group) + ", too many for " + std::string(name(method)));
    }
    // A widened receive into owned voxels would overwrite components the plan leaves alone
    // (AA's even step returns only the crossing populations): land it in the buffer instead.
    if (widen && receive && field.groups()[t.group].role != GroupRole::halo) {
      Message m = buffered(peer, tag, runs.front().count, buffer_size);
      detail::BufferMap map;
      map.offset = m.buffer_offset;
      map.first_voxel = voxels.begin;
      map.voxel_stride = field.components();
      map.component_stride = 1;
      map.component_base = 0;
      map.component_begin = t.components.begin;
      map.component_end = t.components.end;
      pieces.push_back({voxels, map});
      out.push_back(m);
      return;
    }
    for (std::size_t k = 0; k < runs.size(); ++k) {
      Message m;
      m.peer = peer;
      m.tag = tag_of(t, receive, int(k));
      m.count = checked_count(runs[k].count);
      m.field_offset = runs[k].offset;
      out.push_back(m);
    }
  }

  /// One message through the buffer for the transfers `ts`, each a piece of its own, component
  /// after component over the transfer's voxels.
  static Message packed(int peer, int tag, const FieldType& field, const std::vector<HaloTransfer>& ts,
                        std::vector<Piece>& pieces, index_t& buffer_size) {
    index_t count = 0;
    for (const HaloTransfer& t : ts) count += transfer_voxels(t, field.groups()).size() * t.components.size();
    Message m = buffered(peer, tag, count, buffer_size);
    index_t at = m.buffer_offset;
    for (const HaloTransfer& t : ts) {
      const VoxelRange voxels = transfer_voxels(t, field.groups());
      detail::BufferMap map;
      map.offset = at;
      map.first_voxel = voxels.begin;
      map.voxel_stride = 1;
      map.component_stride = voxels.size();
      map.component_base = t.components.begin;
      map.component_begin = t.components.begin;
      map.component_end = t.components.end;
      if (!voxels.empty()) pieces.push_back({voxels, map});
      at += voxels.size() * t.components.size();
    }
    return m;
  }

  /// One message in the field's own storage for the transfers `ts`: an MPI derived datatype
  /// listing their runs, in the transfers' order, from the start of the field.
  static Message typed(int peer, int tag, const FieldType& field, const std::vector<HaloTransfer>& ts) {
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    index_t count = 0;
    for (const HaloTransfer& t : ts) {
      for (const MemoryBlock& run : field.blocks(transfer_voxels(t, field.groups()), t.components)) {
        lengths.push_back(int(checked_count(run.count)));
        displacements.push_back(MPI_Aint(run.offset) * MPI_Aint(sizeof(value_type)));
        count += run.count;
      }
    }
    Message m;
    m.peer = peer;
    m.tag = tag;
    m.count = checked_count(count);
    m.field_offset = 0;
    MPI_Type_create_hindexed(int(lengths.size()), lengths.data(), displacements.data(), mpi_datatype<value_type>(),
                             &m.type);
    MPI_Type_commit(&m.type);
    return m;
  }

  /// A message of `count` values through the buffer, placed at its end.
  static Message buffered(int peer, int tag, index_t count, index_t& buffer_size) {
    Message m;
    m.peer = peer;
    m.tag = tag;
    m.count = checked_count(count);
    m.in_field = false;
    m.buffer_offset = buffer_size;
    buffer_size += m.count;
    return m;
  }

  /// MPI counts are int.
  static index_t checked_count(index_t count) {
    require_in_range("karman::comm::MpiHaloExchanger", "values in one message", count, index_t(0), index_t(INT_MAX));
    return count;
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
  std::vector<Prepared> m_plans;
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
