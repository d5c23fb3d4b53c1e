#include "run_summary.hpp"

#include "host_memory.hpp"

#include <karman/io/checkpoint_file.hpp>

#if KARMAN_ENABLE_MPI
#include <karman/comm/comm_stats.hpp>
#endif

#include <cstdint>
#include <cstdio>
#include <vector>

namespace karman::app {

nlohmann::json memory_per_rank(const comm::Ranks& ranks, const lbm::FlowSolver& solver, double setup_peak_host) {
  const std::vector<double> all =
      ranks.gather({double(ranks.rank()), double(solver.population_bytes()), double(solver.owned_box().local_voxels),
                    setup_peak_host, peak_resident_bytes()});
  nlohmann::json per_rank = nlohmann::json::array();
  for (std::size_t r = 0; r + 5 <= all.size(); r += 5) {
    per_rank.push_back({{"rank", int(all[r])},
                        {"population_bytes", all[r + 1]},
                        {"stored_voxels", all[r + 2]},
                        {"host_peak_bytes_after_setup", all[r + 3]},
                        {"host_peak_bytes", all[r + 4]}});
  }
  return per_rank;
}

nlohmann::json comm_summary([[maybe_unused]] const comm::Ranks& ranks, [[maybe_unused]] const lbm::FlowSolver& solver,
                            [[maybe_unused]] const RunOptions& options) {
#if KARMAN_ENABLE_MPI
  const auto stats = comm::gather_comm_stats(solver.comm_stats(), ranks.comm(), options.variant.layout,
                                             options.overlap && solver.uses_mpi(), solver.gpu_aware());
  nlohmann::json per_rank = nlohmann::json::array();
  for (const auto& r : stats.per_rank) {
    // Table III's counts split by the kind of neighbour (a slab's are all faces).
    nlohmann::json by_kind;
    const char* kinds[neighbour_kinds] = {"face", "edge", "corner"};
    for (int k = 0; k < neighbour_kinds; ++k) {
      by_kind[kinds[k]] = {{"messages_sent_per_step", r.messages_sent_per_step_by_kind[k]},
                           {"values_sent_per_step", r.values_sent_per_step_by_kind[k]}};
    }
    per_rank.push_back({{"rank", r.rank},
                        {"neighbours", r.neighbours},
                        {"messages_sent_per_step", r.messages_sent_per_step},
                        {"values_sent_per_step", r.values_sent_per_step},
                        {"by_neighbour_kind", by_kind},
                        {"exchange_seconds", r.exchange_seconds},
                        {"hidden_fraction", r.hidden_fraction}});
  }
  return {{"ranks", stats.ranks},     {"halo_pack", options.halo_pack}, {"layout", stats.layout},
          {"overlap", stats.overlap}, {"gpu_aware", stats.gpu_aware},   {"per_rank", per_rank}};
#else
  return nullptr;
#endif
}

std::string fields_fingerprint(const GlobalFields& global) {
  std::uint64_t sums[4];
  int i = 0;
  for (const auto* f : {&global.rho, &global.ux, &global.uy, &global.uz}) {
    sums[i++] = io::checksum(reinterpret_cast<const std::byte*>(f->data()), f->size() * sizeof(double));
  }
  const std::uint64_t fingerprint = io::checksum(reinterpret_cast<const std::byte*>(sums), sizeof sums);
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fingerprint));
  return text;
}

}  // namespace karman::app
