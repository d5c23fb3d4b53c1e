#include <karman/perf/bench_command.hpp>

#include <karman/core/backend_traits.hpp>
#include <karman/perf/bench.hpp>
#include <karman/perf/bench_report.hpp>

#include <cstdio>
#include <memory>
#include <string>

namespace karman::perf {
namespace {

/// What the command line sets besides BenchOptions.
struct CommandState {
  BenchOptions options;
  std::string json_path;
  double copy_mib = 0;
  bool copy_only = false;
};

void run(const CommandState& state) {
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
      "Benchmark the stream-collide kernel on a fully periodic box: MLUPS, bytes per update, GB/s and % of a "
      "copy measured in the same process");
  BenchOptions& o = state->options;
  cmd->add_option("--lattice", o.lattices, "Lattices, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"d2q9", "d3q19", "d3q27"}))
      ->capture_default_str();
  cmd->add_option("--precision", o.precisions, "Precisions, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"float", "double"}))
      ->capture_default_str();
  cmd->add_option("--layout", o.layouts, "Population layouts, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"aos", "soa", "csoa", "disaggregated"}))
      ->capture_default_str();
  cmd->add_option("--pattern", o.patterns, "Propagation patterns, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"ab", "aa"}))
      ->capture_default_str();
  cmd->add_option("--collision", o.collisions, "Collision operators, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"bgk", "trt"}))
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
  cmd->callback([state] { run(*state); });
}

}  // namespace karman::perf
