#include <karman/comm/comm_stats.hpp>

#include <array>

namespace karman::comm {

namespace {
// A line travels as doubles: every count fits a double exactly (below 2^53).
constexpr int fields_per_line = 11 + 2 * neighbour_kinds;

std::array<double, fields_per_line> to_array(const RankCommStats& s) {
  const auto& m = s.messages_sent_per_step_by_kind;
  const auto& v = s.values_sent_per_step_by_kind;
  return {double(s.rank),
          double(s.neighbours),
          double(s.exchanges),
          s.messages_sent_per_step,
          s.values_sent_per_step,
          s.messages_received_per_step,
          s.values_received_per_step,
          s.exchange_seconds,
          s.wait_seconds,
          s.overlap_seconds,
          s.hidden_fraction,
          m[0],
          m[1],
          m[2],
          v[0],
          v[1],
          v[2]};
}

RankCommStats from_array(const double* a) {
  RankCommStats s;
  s.rank = int(a[0]);
  s.neighbours = int(a[1]);
  s.exchanges = std::int64_t(a[2]);
  s.messages_sent_per_step = a[3];
  s.values_sent_per_step = a[4];
  s.messages_received_per_step = a[5];
  s.values_received_per_step = a[6];
  s.exchange_seconds = a[7];
  s.wait_seconds = a[8];
  s.overlap_seconds = a[9];
  s.hidden_fraction = a[10];
  for (int k = 0; k < neighbour_kinds; ++k) {
    s.messages_sent_per_step_by_kind[k] = a[11 + k];
    s.values_sent_per_step_by_kind[k] = a[11 + neighbour_kinds + k];
  }
  return s;
}
}  // namespace

std::vector<RankCommStats> gather_to_root(const RankCommStats& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto line = to_array(mine);
  std::vector<double> all(rank == 0 ? std::size_t(size) * fields_per_line : 0);
  MPI_Gather(line.data(), fields_per_line, MPI_DOUBLE, all.data(), fields_per_line, MPI_DOUBLE, 0, comm);
  std::vector<RankCommStats> out;
  for (std::size_t r = 0; r * fields_per_line < all.size(); ++r) out.push_back(from_array(&all[r * fields_per_line]));
  return out;
}

CommStats gather_comm_stats(const RankCommStats& mine, MPI_Comm comm, const std::string& layout, bool overlap,
                            bool gpu_aware) {
  CommStats stats;
  MPI_Comm_size(comm, &stats.ranks);
  stats.layout = layout;
  stats.overlap = overlap;
  stats.gpu_aware = gpu_aware;
  stats.per_rank = gather_to_root(mine, comm);
  return stats;
}

}  // namespace karman::comm
