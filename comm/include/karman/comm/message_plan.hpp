#pragma once
/// \file message_plan.hpp
/// The MPI messages of one HaloPlan over one field mapping: for each neighbour, which values are
/// received and sent, in the field's own storage or through a buffer, with their tags and the
/// pieces packed before the sends and unpacked after the receives. Built once per (mapping,
/// plan) and carried out at every exchange by MpiHaloExchanger (mpi_halo_exchanger.hpp), which
/// keeps the requests, the buffers and the timing. How a transfer becomes messages depends on
/// the layout (exchange_method.hpp); the counts that follow are Meneghin & Mahmoud Table III's.
///
/// Messages per slab neighbour and direction (s = voxels per plane, c = crossing components):
/// Disaggregated one message of c·s values, in place; SoA c messages of s values, in place;
/// AoS one message of Q·s values (whole voxels), in place; CSoA and other layouts one packed
/// message of c·s values. A send to neighbour s pairs with that neighbour's receive from
/// s.opposite() over the same component range; tags derive from direction of travel, first
/// component and run index, so the c messages of SoA pair one to one.
///
/// A plan with several transfers towards one neighbour (a Cartesian block's shared cells and
/// single populations, cartesian_halo_plan.hpp) becomes one message per neighbour and
/// direction: in place through an MPI derived datatype listing the transfers' storage runs
/// where the layout has few runs (Disaggregated, SoA) and the field is in host memory,
/// otherwise packed by the same kernels as above (AoS, CSoA, device memory).

#include <karman/comm/device_memory.hpp>
#include <karman/comm/exchange_method.hpp>
#include <karman/comm/halo_pack.hpp>
#include <karman/comm/mpi_datatype.hpp>
#include <karman/core/error.hpp>
#include <karman/core/exchange_stats.hpp>
#include <karman/core/halo_plan.hpp>

#include <mpi.h>

#include <array>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <string>
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

/// One MPI message: its peer and tag, and where its values live in the field, the buffer and
/// the staging mirror.
struct Message {
  int peer = MPI_PROC_NULL;               ///< neighbour rank
  int tag = 0;                            ///< from direction of travel, first component and run index
  index_t count = 0;                      ///< values in the message
  bool in_field = true;                   ///< sent from or received into the field's storage itself
  index_t field_offset = 0;               ///< in_field: first value in the field's storage
  index_t buffer_offset = 0;              ///< !in_field: first value in the buffer
  index_t staging_offset = 0;             ///< when staged: first value in the pinned host mirror
  MPI_Datatype type = MPI_DATATYPE_NULL;  ///< in_field: the runs of several transfers (from the field's start)
  int kind = 0;                           ///< to a face, edge or corner neighbour (NeighbourStep::axes() - 1)
};

/// The messages of one HaloPlan over one field mapping (the file comment).
template <class FieldType>
class MessagePlan {
 public:
  using value_type = typename FieldType::value_type;
  using layout_type = typename FieldType::layout_type;
  using memory_space = typename FieldType::memory_space;
  using Piece = detail::BufferPiece;

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

  /// The messages of `plan` over `field`'s mapping towards the ranks `peers` (by
  /// NeighbourStep::index(), MPI_PROC_NULL where there is none), transfers becoming messages by
  /// `method` (the layout's, or packed). Needs MPI only for the derived datatypes.
  MessagePlan(const FieldType& field, const HaloPlan& plan, const std::array<int, NeighbourStep::count>& peers,
              ExchangeMethod method)
      : m_plan(plan), m_groups(field.groups()), m_components(field.components()), m_method(method) {
    const auto receives = by_neighbour(plan.receives), sends = by_neighbour(plan.sends);
    // Whether transfers merge into one message per neighbour is the plan's choice, not each
    // neighbour's: a block's edge send (one population from three cells) pairs with a receive
    // of one transfer, which must not go as whole voxels.
    bool merge = false;
    for (const auto* lists : {&receives, &sends})
      for (const std::vector<HaloTransfer>& ts : *lists) merge = merge || ts.size() > 1;
    std::vector<Piece> packs, unpacks;
    for (const std::vector<HaloTransfer>& ts : receives)
      add_messages(peers, m_receives, unpacks, field, ts, merge, true);
    for (const std::vector<HaloTransfer>& ts : sends) add_messages(peers, m_sends, packs, field, ts, merge, false);
    for (std::vector<Message>* list : {&m_receives, &m_sends}) {
      for (Message& m : *list) {
        m.staging_offset = m_staging_values;
        m_staging_values += m.count;
      }
    }
    for (const Message& m : m_sends) {
      m_values_sent += m.count;
      m_messages_sent_by_kind[m.kind] += 1;
      m_values_sent_by_kind[m.kind] += m.count;
    }
    for (const Message& m : m_receives) m_values_received += m.count;
    m_pack_table = detail::PieceTable<memory_space>(packs);
    m_unpack_table = detail::PieceTable<memory_space>(unpacks);
  }

  /// Frees the derived datatypes (unless MPI is finalized already). A plan owns them, so it is
  /// neither copied nor moved (MpiHaloExchanger keeps its plans by pointer).
  ~MessagePlan() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    for (std::vector<Message>* list : {&m_receives, &m_sends})
      for (Message& m : *list)
        if (m.type != MPI_DATATYPE_NULL) MPI_Type_free(&m.type);
  }
  MessagePlan(const MessagePlan&) = delete;
  MessagePlan& operator=(const MessagePlan&) = delete;

  /// True when this plan's messages serve `plan` over `field`: the same mapping (groups and
  /// components) and the same transfers.
  bool serves(const FieldType& field, const HaloPlan& plan) const {
    return m_components == field.components() && m_groups == field.groups() &&
           detail::same_transfers(m_plan.sends, plan.sends) && detail::same_transfers(m_plan.receives, plan.receives);
  }

  /// Messages posted as receives, then those posted as sends.
  const std::vector<Message>& receives() const { return m_receives; }
  const std::vector<Message>& sends() const { return m_sends; }
  /// The pieces gathered into the buffer before the sends and scattered after the receives, on
  /// the device, each direction moved by one kernel.
  const detail::PieceTable<memory_space>& pack_table() const { return m_pack_table; }
  const detail::PieceTable<memory_space>& unpack_table() const { return m_unpack_table; }
  /// Values of the buffer and of the staging mirror the messages need.
  index_t buffer_values() const { return m_buffer_values; }
  index_t staging_values() const { return m_staging_values; }
  /// Values sent and received in one exchange, and the sends by kind of neighbour.
  index_t values_sent() const { return m_values_sent; }
  index_t values_received() const { return m_values_received; }
  const std::array<index_t, neighbour_kinds>& messages_sent_by_kind() const { return m_messages_sent_by_kind; }
  const std::array<index_t, neighbour_kinds>& values_sent_by_kind() const { return m_values_sent_by_kind; }

 private:
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

  /// Tag shared by a send and the receive it pairs with: a send to neighbour s and the
  /// receive from s.opposite() both travel along s.
  static int tag_of(const HaloTransfer& t, bool receive, int run) {
    const NeighbourStep travel = receive ? t.neighbour.opposite() : t.neighbour;
    return travel.index() * tag_per_direction + t.components.begin * tag_per_component + run;
  }

  /// Appends the messages of the transfers `ts` of one neighbour (none when there is no
  /// neighbour on their side) and the pieces they pack or unpack; one message when `merge`.
  void add_messages(const std::array<int, NeighbourStep::count>& peers, std::vector<Message>& out,
                    std::vector<Piece>& pieces, const FieldType& field, const std::vector<HaloTransfer>& ts, bool merge,
                    bool receive) {
    const int peer = peers[std::size_t(ts.front().neighbour.index())];
    if (peer == MPI_PROC_NULL) return;
    const std::size_t first = out.size();
    add_messages_to(peer, out, pieces, field, ts, merge, receive);
    for (std::size_t k = first; k < out.size(); ++k) out[k].kind = ts.front().neighbour.axes() - 1;
  }

  /// add_messages() once the peer is known.
  void add_messages_to(int peer, std::vector<Message>& out, std::vector<Piece>& pieces, const FieldType& field,
                       const std::vector<HaloTransfer>& ts, bool merge, bool receive) {
    const int tag = tag_of(ts.front(), receive, 0);
    if (merge) {
      // A derived datatype only where MPI reads host memory: over device memory Open MPI's CUDA
      // path moves it run by run, far slower than packed and staged (docs/performance.md,
      // Cartesian blocks on 4 GPUs), so device data is packed by a kernel, GPU-aware or not.
      if (m_method == ExchangeMethod::in_place && DeviceMemoryTraits<memory_space>::host_accessible) {
        out.push_back(typed(peer, tag, field, ts));
      } else {
        out.push_back(packed(peer, tag, field, ts, pieces));
      }
      return;
    }
    const HaloTransfer& t = ts.front();
    const VoxelRange voxels = transfer_voxels(t, field.groups());
    if (m_method == ExchangeMethod::packed) {
      out.push_back(packed(peer, tag, field, ts, pieces));
      return;
    }
    const bool widen = m_method == ExchangeMethod::whole_voxels;
    const std::vector<MemoryBlock> runs =
        field.blocks(voxels, widen ? ComponentRange{0, field.components()} : t.components);
    if (int(runs.size()) > max_runs_per_transfer || (widen && runs.size() != 1)) {
      throw std::logic_error("karman::comm::MessagePlan: layout " + std::string(layout_type::name) + " gives " +
                             std::to_string(runs.size()) + " storage runs for group " +
                             field.groups().describe(t.group) + ", too many for " + std::string(name(m_method)));
    }
    // A widened receive into owned voxels would overwrite components the plan leaves alone
    // (AA's even step returns only the crossing populations): land it in the buffer instead.
    if (widen && receive && field.groups()[t.group].role != GroupRole::halo) {
      Message m = buffered(peer, tag, runs.front().count);
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
  Message packed(int peer, int tag, const FieldType& field, const std::vector<HaloTransfer>& ts,
                 std::vector<Piece>& pieces) {
    index_t count = 0;
    for (const HaloTransfer& t : ts) count += transfer_voxels(t, field.groups()).size() * t.components.size();
    Message m = buffered(peer, tag, count);
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
  Message buffered(int peer, int tag, index_t count) {
    Message m;
    m.peer = peer;
    m.tag = tag;
    m.count = checked_count(count);
    m.in_field = false;
    m.buffer_offset = m_buffer_values;
    m_buffer_values += m.count;
    return m;
  }

  /// MPI counts are int.
  static index_t checked_count(index_t count) {
    require_in_range("karman::comm::MessagePlan", "values in one message", count, index_t(0), index_t(INT_MAX));
    return count;
  }

  HaloPlan m_plan;
  GroupTable m_groups;
  int m_components = 0;
  ExchangeMethod m_method = ExchangeMethod::packed;
  std::vector<Message> m_receives, m_sends;
  detail::PieceTable<memory_space> m_pack_table, m_unpack_table;
  index_t m_buffer_values = 0;
  index_t m_staging_values = 0;
  index_t m_values_sent = 0;
  index_t m_values_received = 0;
  std::array<index_t, neighbour_kinds> m_messages_sent_by_kind{};
  std::array<index_t, neighbour_kinds> m_values_sent_by_kind{};
};

}  // namespace karman::comm
