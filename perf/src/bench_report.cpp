#include <karman/perf/bench_report.hpp>

#include <karman/core/error.hpp>
#include <karman/core/layouts.hpp>

#include <nlohmann/json.hpp>

#include <cstdarg>
#include <cstdio>
#include <fstream>

namespace karman::perf {
namespace {

/// printf into a string (one table line at most).
__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
  char line[256];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(line, sizeof(line), fmt, args);
  va_end(args);
  return line;
}

}  // namespace

std::string table_header() {
  return format("%-7s %-5s %4s %-7s %-6s %-13s %-3s %-4s %6s %10s %9s %7s %6s %7s %9s\n", "case", "sched", "tile",
                "lattice", "prec", "layout", "pat", "coll", "n", "MLUPS", "GB/s", "%copy", "B/upd", "B/cell", "drift");
}

std::string table_row(const BenchRecord& r) {
  return format("%-7s %-5s %4d %-7s %-6s %-13s %-3s %-4s %6d %10.1f %9.1f %7.1f %6zu %7.1f %9.1e\n",
                r.case_name.c_str(), r.schedule.c_str(), r.tile, r.lattice.c_str(), r.precision.c_str(),
                r.layout.c_str(), r.pattern.c_str(), r.collision.c_str(), r.n, r.mlups, r.bandwidth_gbps,
                r.percent_of_copy, r.bytes_per_update, r.bytes_per_cell, r.mass_drift);
}

std::string copy_summary(const CopyBandwidth& copy) {
  std::string out =
      format("copy bandwidth (2 x %.0f MiB buffers, bytes read + written):\n", double(copy.buffer_bytes) / (1 << 20));
  for (const auto& k : copy.kernels)
    out += format("  %-12s %9.1f GB/s%s\n", k.name.c_str(), k.gbps, k.name == copy.best_kernel ? "  <- reference" : "");
  out += format("  %-12s %9.1f GB/s\n", "deep_copy", copy.deep_copy_gbps);
  return out;
}

std::string to_json(const std::vector<BenchRecord>& records) {
  auto all = nlohmann::ordered_json::array();
  for (const auto& r : records) {
    nlohmann::ordered_json j;
    j["case"] = r.case_name;
    j["schedule"] = r.schedule;
    j["tile"] = r.tile;
    j["lattice"] = r.lattice;
    j["precision"] = r.precision;
    j["layout"] = r.layout;
    if (r.layout == "csoa") j["csoa_alpha"] = csoa_alpha;
    j["pattern"] = r.pattern;
    j["collision"] = r.collision;
    j["n"] = r.n;
    j["voxels"] = r.voxels;
    if (r.case_name == "ib") {
      j["markers"] = r.markers;
      j["spheres"] = r.spheres;
      j["sphere_radius"] = r.sphere_radius;
      j["marker_block"] = r.marker_block;
    }
    j["steps"] = r.steps;
    j["warmup"] = r.warmup;
    j["repeat"] = r.repeat;
    j["seconds"] = r.seconds;
    j["mlups"] = r.mlups;
    j["mlups_max"] = r.mlups_max;
    j["bytes_per_update"] = r.bytes_per_update;
    j["bandwidth_gbps"] = r.bandwidth_gbps;
    j["copy_bandwidth_gbps"] = r.copy_bandwidth_gbps;
    j["copy_kernel"] = r.copy_kernel;
    j["deep_copy_gbps"] = r.deep_copy_gbps;
    j["percent_of_copy"] = r.percent_of_copy;
    j["bytes_per_cell"] = r.bytes_per_cell;
    j["population_bytes"] = r.population_bytes;
    j["mass_drift"] = r.mass_drift;
    j["backend"] = r.backend;
    j["device"] = r.device;
    j["concurrency"] = r.concurrency;
    j["kokkos_version"] = r.kokkos_version;
    j["commit"] = r.commit;
    all.push_back(std::move(j));
  }
  return all.dump(2) + "\n";
}

void write_json(const std::string& path, const std::vector<BenchRecord>& records) {
  std::ofstream out(path);
  if (!out) throw Error("karman bench: cannot write --json file '" + path + "'");
  out << to_json(records);
  if (!out) throw Error("karman bench: writing --json file '" + path + "' failed");
}

}  // namespace karman::perf
