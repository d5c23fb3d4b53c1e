#pragma once
/// \file plan_check.hpp
/// Whether the two sides of every message of a HaloPlan agree. MpiHaloExchanger pairs the
/// transfers of a merged message by order, so a plan whose sender lists (cell, component) in
/// another order than its receiver passes every size check and scrambles the halo (a stencil
/// plan with one transfer per cell carrying all components: a conservation error of 0.48,
/// issue 55). Each side describes every message as the values it holds in order, component
/// and global voxel, the neighbours swap these descriptions once per plan, and a plan whose
/// sides differ (order, sizes, directions) is refused on every rank, naming the transfer.

#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/halo_plan.hpp>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace karman::comm::detail {

/// Global voxel number (x fastest over the global box, wrapped periodically) of a local voxel;
/// empty when the field's voxels are not the partition's (a block-sparse grid's), in which case
/// only components and counts are compared.
using GlobalIdOf = std::function<long long(index_t)>;

/// The global voxel numbers of a SlabPartition's or CartesianPartition's local voxels.
template <class Partition>
GlobalIdOf global_ids(const Partition& p) {
  return [p](index_t v) {
    const std::array<int, 3> local = p.coordinates(v), origin = p.origin();
    long long id = 0;
    for (int a = 2; a >= 0; --a) {
      const int n = p.global().extent(a);
      id = id * n + ((origin[std::size_t(a)] + local[std::size_t(a)]) % n + n) % n;
    }
    return id;
  };
}

/// Consecutive values of a message: one component of voxels with consecutive global numbers
/// (first_id < 0: numbers unknown).
struct ValueRun {
  long long component = 0;
  long long first_id = -1;
  long long count = 0;
};

/// The values of one neighbour's message, as the transfers `ts` list them: transfer after
/// transfer, component-major over each transfer's voxels (the order of the packed message and
/// of every in-place layout's runs within a group).
inline std::vector<ValueRun> value_runs(const std::vector<HaloTransfer>& ts, const GroupTable& groups,
                                        const GlobalIdOf& id) {
  std::vector<ValueRun> out;
  std::vector<long long> ids;
  for (const HaloTransfer& t : ts) {
    const VoxelRange voxels = transfer_voxels(t, groups);
    ids.clear();
    for (index_t v = voxels.begin; v < voxels.end; ++v) ids.push_back(id ? id(v) : -1);
    for (int q = t.components.begin; q < t.components.end; ++q) {
      for (const long long g : ids) {
        ValueRun* last = out.empty() ? nullptr : &out.back();
        if (last != nullptr && last->component == q && (g < 0 ? last->first_id < 0 : g == last->first_id + last->count))
          ++last->count;
        else
          out.push_back({q, g, 1});
      }
    }
  }
  return out;
}

/// Position of the first value where `a` and `b` differ in component or voxel (voxels compared
/// where both sides know them), or where one ends first; -1 when they agree.
inline long long first_difference(const std::vector<ValueRun>& a, const std::vector<ValueRun>& b) {
  std::size_t i = 0, j = 0;
  long long in_a = 0, in_b = 0, at = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].component != b[j].component) return at;
    if (a[i].first_id >= 0 && b[j].first_id >= 0 && a[i].first_id + in_a != b[j].first_id + in_b) return at;
    const long long n = std::min(a[i].count - in_a, b[j].count - in_b);
    at += n;
    in_a += n;
    in_b += n;
    if (in_a == a[i].count) ++i, in_a = 0;
    if (in_b == b[j].count) ++j, in_b = 0;
  }
  return i < a.size() || j < b.size() ? at : -1;
}

/// "component q of voxel (x, y, z)" for value `at` of `runs`, or "nothing" past their end.
inline std::string describe_value(const std::vector<ValueRun>& runs, long long at, const Extents& global) {
  for (const ValueRun& r : runs) {
    if (at >= r.count) {
      at -= r.count;
      continue;
    }
    std::string out = "component " + std::to_string(r.component);
    if (r.first_id < 0) return out;
    const index_t g = r.first_id + at;
    return out + " of voxel (" + std::to_string(global.coordinate(g, 0)) + ", " +
           std::to_string(global.coordinate(g, 1)) + ", " + std::to_string(global.coordinate(g, 2)) + ")";
  }
  return "nothing";
}

/// "send 3 (shared +x-y, components [0, 7))": the transfer of `ts` (not empty) holding value
/// `at`, or the last one past their end; `ts` are the plan's `kind` ("send" or "receive")
/// entries towards one neighbour, `index` their positions in the plan.
inline std::string describe_transfer(const std::vector<HaloTransfer>& ts, const std::vector<std::size_t>& index,
                                     long long at, const GroupTable& groups, const char* kind) {
  std::size_t k = 0;
  for (; k + 1 < ts.size(); ++k) {
    const long long n = transfer_voxels(ts[k], groups).size() * ts[k].components.size();
    if (at < n) break;
    at -= n;
  }
  const HaloTransfer& t = ts[k];
  std::string out = std::string(kind) + " " + std::to_string(index[k]) + " (" + groups.describe(t.group) +
                    ", components [" + std::to_string(t.components.begin) + ", " + std::to_string(t.components.end) +
                    ")";
  if (t.voxels.begin >= 0)
    out += ", voxels [" + std::to_string(t.voxels.begin) + ", " + std::to_string(t.voxels.end) + ")";
  return out + ")";
}

/// Refuses `plan` unless every message it sends is the one its neighbour's plan expects, in
/// components, voxels, order and size, and every neighbour it receives from sends one. Called
/// once per plan, by every rank of `comm` at the same point (it swaps a description of each
/// message with the neighbours in `peers`, by NeighbourStep::index(), then agrees): a mismatch
/// throws a CollectiveError on every rank, naming the first failing rank's transfer.
inline void check_plan_agrees(MPI_Comm comm, const std::array<int, NeighbourStep::count>& peers, const HaloPlan& plan,
                              const GroupTable& groups, const GlobalIdOf& id, const Extents& global) {
  struct Side {
    std::vector<HaloTransfer> transfers;
    std::vector<std::size_t> index;  ///< position of each transfer in the plan
    std::vector<ValueRun> runs;
  };
  std::array<Side, NeighbourStep::count> sends, receives;
  const auto sort = [](const std::vector<HaloTransfer>& ts, std::array<Side, NeighbourStep::count>& by_step) {
    for (std::size_t k = 0; k < ts.size(); ++k) {
      by_step[std::size_t(ts[k].neighbour.index())].transfers.push_back(ts[k]);
      by_step[std::size_t(ts[k].neighbour.index())].index.push_back(k);
    }
  };
  sort(plan.sends, sends);
  sort(plan.receives, receives);

  // Per neighbour: the runs count of what goes there and of what is expected from it, then both run lists.
  std::array<std::vector<long long>, NeighbourStep::count> out, in;
  std::array<long long, NeighbourStep::count> out_size{}, in_size{};
  std::vector<int> steps;
  for (int s = 0; s < NeighbourStep::count; ++s) {
    if (peers[std::size_t(s)] == MPI_PROC_NULL || NeighbourStep::from_index(s).none()) continue;
    steps.push_back(s);
    Side &send = sends[std::size_t(s)], &receive = receives[std::size_t(s)];
    send.runs = value_runs(send.transfers, groups, id);
    receive.runs = value_runs(receive.transfers, groups, id);
    std::vector<long long>& o = out[std::size_t(s)];
    o = {(long long)send.runs.size(), (long long)receive.runs.size()};
    for (const std::vector<ValueRun>* runs : {&send.runs, &receive.runs})
      for (const ValueRun& r : *runs) o.insert(o.end(), {r.component, r.first_id, r.count});
    out_size[std::size_t(s)] = (long long)o.size();
  }
  // What travels along s comes in from s.opposite(): tags are the direction of travel.
  const auto swap = [&](auto&& receive_buffer, auto&& send_buffer, auto&& count_of) {
    std::vector<MPI_Request> requests;
    for (const int s : steps) {
      const int from = NeighbourStep::from_index(s).opposite().index();
      requests.emplace_back();
      MPI_Irecv(receive_buffer(s), int(count_of(s, true)), MPI_LONG_LONG, peers[std::size_t(s)], from, comm,
                &requests.back());
      requests.emplace_back();
      MPI_Isend(send_buffer(s), int(count_of(s, false)), MPI_LONG_LONG, peers[std::size_t(s)], s, comm,
                &requests.back());
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  };
  swap([&](int s) { return &in_size[std::size_t(s)]; }, [&](int s) { return &out_size[std::size_t(s)]; },
       [](int, bool) { return 1; });
  for (const int s : steps) in[std::size_t(s)].resize(std::size_t(in_size[std::size_t(s)]));
  swap([&](int s) { return in[std::size_t(s)].data(); }, [&](int s) { return out[std::size_t(s)].data(); },
       [&](int s, bool receive) { return receive ? in_size[std::size_t(s)] : out_size[std::size_t(s)]; });

  std::string message;
  for (const int s : steps) {
    if (!message.empty()) break;
    const std::vector<long long>& theirs = in[std::size_t(s)];
    std::vector<ValueRun> their_sends, their_receives;
    std::size_t at = 2;
    for (std::vector<ValueRun>* runs : {&their_sends, &their_receives}) {
      const long long n = theirs[runs == &their_sends ? 0 : 1];
      for (long long k = 0; k < n; ++k, at += 3) runs->push_back({theirs[at], theirs[at + 1], theirs[at + 2]});
    }
    const NeighbourStep step = NeighbourStep::from_index(s);
    const std::string peer = "rank " + std::to_string(peers[std::size_t(s)]);
    // What this rank receives from s is what s sends towards us, and the other way round.
    for (const bool receive : {true, false}) {
      const Side& mine = receive ? receives[std::size_t(s)] : sends[std::size_t(s)];
      const std::vector<ValueRun>& other = receive ? their_sends : their_receives;
      const long long d = first_difference(mine.runs, other);
      if (d < 0) continue;
      const std::string theirs_there = peer + "'s " + (receive ? "sends to " : "receives from ") +
                                       to_string(step.opposite()) + " have " + describe_value(other, d, global) +
                                       " as value " + std::to_string(d) + " of the message";
      message = "karman::comm::MpiHaloExchanger: the halo plan's two sides disagree: ";
      if (mine.transfers.empty()) {
        message += std::string(receive ? "receives nothing from " : "sends nothing to ") + to_string(step) +
                   ", where " + theirs_there;
      } else {
        message += describe_transfer(mine.transfers, mine.index, d, groups, receive ? "receive" : "send") +
                   (receive ? " from " : " to ") + to_string(step) + " has " + describe_value(mine.runs, d, global) +
                   " as value " + std::to_string(d) + " of the message, where " + theirs_there;
      }
      message +=
          " (both sides must list a message's cells and components in one order: block_halo_plan, "
          "stencil_halo_plan.hpp)";
      break;
    }
  }
  Ranks(comm).run([&] {
    if (!message.empty()) throw Error(message);
  });
}

}  // namespace karman::comm::detail
