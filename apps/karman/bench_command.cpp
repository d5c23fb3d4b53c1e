#include "bench_command.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/lbm/variants.hpp>
#include <karman/perf/bench.hpp>
#include <karman/perf/bench_report.hpp>
#include <karman/perf/scaling_bench.hpp>
#include <karman/perf/sparse_bench.hpp>
#include <karman/perf/split_collision.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace karman::app {

using namespace perf;

namespace {

/// What the command line sets besides BenchOptions.
struct CommandState {
  BenchOptions options;
  std::string json_path;
  double copy_mib = 0;
  bool copy_only = false;
  ScalingOptions scaling;
  std::string grid = "dense";    ///< dense: the variant sweep; sparse: the porosity sweep
  bool split_collision = false;  ///< the fused against the split central-moment update instead
  SparseBenchOptions sparse;
  CLI::App* command = nullptr;  ///< to tell the options given from the defaults
};

/// The one value of a variant list the porosity sweep takes: the list given on the command line,
/// which must hold one name, or the sweep's default.
std::string single(const CommandState& state, const char* option, const std::vector<std::string>& given,
                   const std::string& fallback) {
  if (state.command->count(option) == 0) return fallback;
  if (given.size() != 1) {
    throw Error(std::string("karman bench --grid sparse: ") + option + " takes one name, got " +
                std::to_string(given.size()));
  }
  return given.front();
}

/// `--grid sparse`: the porosity sweep on the dense and block-sparse grids (sparse_bench.hpp).
void run_sparse_mode(const CommandState& state) {
  SparseBenchOptions o = state.sparse;
  const BenchOptions& b = state.options;
  o.lattice = single(state, "--lattice", b.lattices, o.lattice);
  o.precision = single(state, "--precision", b.precisions, o.precision);
  o.layout = single(state, "--layout", b.layouts, o.layout);
  o.pattern = single(state, "--pattern", b.patterns, o.pattern);
  o.collision = single(state, "--collision", b.collisions, o.collision);
  o.n = b.n;
  o.steps = b.steps;
  o.warmup = b.warmup;
  o.repeat = b.repeat;
  o = resolved(o);
  const BackendInfo info = backend_info();
  std::printf("karman bench --grid sparse: Kokkos %s, backend %s, device %s, %d threads\n", info.kokkos_version.c_str(),
              info.default_backend.c_str(), info.device_name.c_str(), info.concurrency);
  std::printf(
      "%s/%s/%s/%s/%s, %d^3 samples (random packs: radius %g, seed %llu; arrays: cell %d), %d steps x %d "
      "(warmup %d); rates count fluid voxel updates only\n\n%s",
      o.lattice.c_str(), o.precision.c_str(), o.layout.c_str(), o.collision.c_str(), o.pattern.c_str(), o.n, o.radius,
      static_cast<unsigned long long>(o.seed), o.period, o.steps, o.repeat, o.warmup, sparse_table_header().c_str());
  std::fflush(stdout);
  const auto records = run_sparse_bench(o, [](const SparseBenchRecord& r) {
    std::printf("%s", sparse_table_row(r).c_str());
    std::fflush(stdout);
  });
  if (!state.json_path.empty()) {
    write_sparse_json(state.json_path, records);
    std::printf("wrote %zu records to %s\n", records.size(), state.json_path.c_str());
  }
}

/// `--scaling weak|strong` under mpirun: per-rank and total MLUPS, exchange time and overlap.
void run_scaling_mode(const CommandState& state) {
  const auto records = run_scaling(state.options, state.scaling);
  for (const auto& r : records) {
    if (r.per_rank.empty()) continue;  // only rank 0 holds the gathered lines
    std::printf("%s %s/%s/%s/%s/%s: %d rank(s) as %dx%dx%d, box %dx%dx%d, %.1f MLUPS total, %.1f MLUPS per rank\n",
                r.mode.c_str(), r.lattice.c_str(), r.precision.c_str(), r.layout.c_str(), r.pattern.c_str(),
                r.collision.c_str(), r.ranks, r.process_grid[0], r.process_grid[1], r.process_grid[2], r.global.nx,
                r.global.ny, r.global.nz, r.mlups_total, r.mlups_total / r.ranks);
    for (const auto& p : r.per_rank) {
      std::printf("  rank %d: %.1f MLUPS, exchange %.4f s, hidden %.2f, %.0f messages / %.0f values per step\n", p.rank,
                  p.mlups, p.exchange_seconds, p.hidden_fraction, p.messages_sent_per_step, p.values_sent_per_step);
    }
  }
  if (!state.json_path.empty() && !records.empty() && !records.front().per_rank.empty()) {
    write_scaling_json(state.json_path, records);
    std::printf("wrote %zu records to %s\n", records.size(), state.json_path.c_str());
  }
}

/// `--split-collision`: seed 002 §4.4's two-launch collision against the fused one (split_collision.hpp).
void run_split_collision_mode(const CommandState& state) {
  const std::set<std::string> accepted{"--split-collision", "--n",        "--steps", "--warmup",
                                       "--repeat",          "--copy-mib", "--json"};
  for (const CLI::Option* option : state.command->get_options()) {
    if (option->count() > 0 && accepted.count(option->get_name()) == 0) {
      throw Error("karman bench --split-collision: " + option->get_name() +
                  " does not apply (the update is fixed: box, d3q27, float, soa, ab, cm); accepted with it: --n, "
                  "--steps, --warmup, --repeat, --copy-mib, --json");
    }
  }
  SplitCollisionOptions o;
  o.n = state.options.n;
  o.steps = state.options.steps;
  o.warmup = state.options.warmup;
  o.repeat = state.options.repeat;
  o.copy_bytes = std::size_t(state.copy_mib * (1 << 20));
  validate(o);
  const BackendInfo info = backend_info();
  std::printf("karman bench --split-collision: Kokkos %s, backend %s, device %s, %d threads\n",
              info.kokkos_version.c_str(), info.default_backend.c_str(), info.device_name.c_str(), info.concurrency);
  std::fflush(stdout);
  const SplitCollisionResult result = run_split_collision(o);
  std::printf("%s", split_collision_table(result).c_str());
  if (!state.json_path.empty()) {
    write_json(state.json_path, result);
    std::printf("wrote the record to %s\n", state.json_path.c_str());
  }
}

void run(const CommandState& state) {
  if (state.split_collision) {
    run_split_collision_mode(state);
    return;
  }
  if (state.grid == "sparse") {
    run_sparse_mode(state);
    return;
  }
  if (!state.scaling.mode.empty()) {
    run_scaling_mode(state);
    return;
  }
  BenchOptions options = state.options;
  options.copy_bytes = std::size_t(state.copy_mib * (1 << 20));
  validate(options);
  const BackendInfo info = backend_info();
  std::printf("karman bench: Kokkos %s, backend %s, device %s, %d threads\n", info.kokkos_version.c_str(),
              info.default_backend.c_str(), info.device_name.c_str(), info.concurrency);
  const CopyBandwidth copy = measure_copy_bandwidth(copy_buffer_bytes(options), options.repeat);
  std::printf("%s", copy_summary(copy).c_str());
  if (state.copy_only) return;
  std::printf("\n%s", table_header().c_str());
  std::fflush(stdout);
  const auto records = run_bench(options, copy, [](const BenchRecord& r) {
    std::printf("%s", table_row(r).c_str());
    std::fflush(stdout);
  });
  if (!state.json_path.empty()) {
    write_json(state.json_path, records);
    std::printf("wrote %zu records to %s\n", records.size(), state.json_path.c_str());
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto state = std::make_shared<CommandState>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Benchmark the stream-collide kernels on a fully periodic box or a real case with walls: MLUPS, bytes per "
      "update, GB/s and % of a copy measured in the same process");
  BenchOptions& o = state->options;
  state->command = cmd;
  cmd->add_option("--grid", state->grid,
                  "dense: the variant sweep on a box; sparse: a porosity sweep (random sphere packs and simple-cubic "
                  "arrays) on the dense grid and the block-sparse grid with memory and bitmask grouping, counting "
                  "fluid voxel updates only (one variant: default d3q19/float/csoa/bgk/ab)")
      ->check(CLI::IsMember({"dense", "sparse"}))
      ->capture_default_str();
  cmd->add_option("--porosity", state->sparse.porosities,
                  "--grid sparse: target porosities in [0.05, 1], comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--sample", state->sparse.samples,
                  "--grid sparse: random (overlapping spheres) and/or array (simple-cubic), comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"random", "array"}))
      ->capture_default_str();
  cmd->add_option("--grids", state->sparse.grids, "--grid sparse: grids compared, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"dense", "memory", "bitmask"}))
      ->capture_default_str();
  cmd->add_option("--radius", state->sparse.radius, "--grid sparse: sphere radius of random packs (default n / 16)")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--period", state->sparse.period, "--grid sparse: cell edge of arrays (default n / 4)")
      ->check(CLI::Range(4, 65536));
  cmd->add_option("--seed", state->sparse.seed, "--grid sparse: seed of random packs")->capture_default_str();
  cmd->add_option("--case", o.cases,
                  "Cases, comma-separated: box (periodic fluid), cavity (lid-driven, walls on every side), channel "
                  "(walls, regularized pressure inlet and outlet), ib (the periodic box with an array of spheres, "
                  "circles in 2D, held at rest by immersed-boundary markers; AB with BGK or TRT only, other "
                  "patterns and collisions are skipped for it); each on an n^3 (n^2) box, walls included")
      ->delimiter(',')
      ->check(CLI::IsMember({"box", "cavity", "channel", "ib"}))
      ->capture_default_str();
  cmd->add_option("--markers", o.markers,
                  "--case ib: markers in all, about one voxel apart on k^3 (k^2) spheres (default: 1000000 on GPUs, "
                  "10000 on CPUs)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 40));
  cmd->add_option("--marker-block", o.marker_blocks,
                  "--case ib: block edges l of the markers' order, comma-separated: blocks of l^3 voxels in x-y-z "
                  "order, Morton order within a block (Chen et al. 2022 Sec. 4.2.2); 0: Morton order over the box")
      ->delimiter(',')
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--schedule", o.schedules,
                  "Schedules of cases with walls, comma-separated: split (bulk and boundary voxels by separate "
                  "kernels) or fused (one kernel reading every voxel's flag word)")
      ->delimiter(',')
      ->check(CLI::IsMember({"split", "fused"}))
      ->capture_default_str();
  cmd->add_option("--tile", o.tiles,
                  "Voxels the split schedule classifies together, comma-separated (0: the backend's default, one "
                  "memory transaction of a population on GPUs, one voxel on CPUs)")
      ->delimiter(',')
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--lattice", o.lattices, "Lattices, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(lbm::Lattices::names()))
      ->capture_default_str();
  cmd->add_option("--precision", o.precisions, "Precisions, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(lbm::Precisions::names()))
      ->capture_default_str();
  cmd->add_option("--layout", o.layouts, "Population layouts, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(lbm::Layouts::names()))
      ->capture_default_str();
  cmd->add_option("--pattern", o.patterns, "Propagation patterns, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(lbm::Patterns::names()))
      ->capture_default_str();
  cmd->add_option("--collision", o.collisions, "Collision operators, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(lbm::Collisions::names()))
      ->capture_default_str();
  cmd->add_option("--n", o.n,
                  "Box edge: n x n for d2q9, n x n x n for 3D lattices (default: 4096 / 256 on GPUs, 2048 / 128 on "
                  "CPUs)")
      ->check(CLI::Range(4, 65536));
  cmd->add_option("--steps", o.steps, "Timed steps per sample, even (default: 100 on GPUs, 10 on CPUs)")
      ->check(CLI::Range(2, 1000000));
  cmd->add_option("--warmup", o.warmup, "Untimed steps before the samples (default: steps / 5, at least 2)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--repeat", o.repeat, "Timed samples per variant; the median is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--copy-mib", state->copy_mib,
                  "MiB of each copy-reference buffer (default: the largest population storage of the sweep, at "
                  "least 1024 on GPUs, 256 on CPUs)")
      ->check(CLI::Range(1.0, 1048576.0));
  cmd->add_flag("--copy-bandwidth-only", state->copy_only, "Measure and print the copy reference only");
  cmd->add_option("--json", state->json_path, "Also write the records as a JSON array to this file");
  cmd->add_flag("--split-collision", state->split_collision,
                "Seed 002 Sec. 4.4: the D3Q27 float SoA central-moment update (cm) on the periodic box fused into one "
                "launch against split over two (relaxed central moments and u written and read back between them); "
                "with --n, --steps, --warmup, --repeat, --copy-mib, --json");
  cmd->add_option("--scaling", state->scaling.mode,
                  "Under mpirun: weak (n^3 per rank, stacked along z) or strong (n^3 in all) scaling of the "
                  "periodic box, with per-rank MLUPS and exchange times")
      ->check(CLI::IsMember({"weak", "strong"}));
  cmd->add_option("--overlap", state->scaling.overlap, "With --scaling: overlap the exchange (on|off)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  cmd->add_flag("--halo-pack", state->scaling.halo_pack, "With --scaling: pack halos into one buffer per neighbour");
  cmd->add_option("--ranks-per-axis", state->scaling.ranks_per_axis,
                  "With --scaling: Cartesian blocks of AxBxC ranks (2D: AxB), or auto; default: slabs");
  cmd->add_option("--mpi-gpu-aware", state->scaling.gpu_aware, "With --scaling: auto|on|off")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->callback([state] { run(*state); });
}

}  // namespace karman::app
