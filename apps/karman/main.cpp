// The karman command line: one executable, one subcommand per case (docs/architecture.md).
#include "bench_command.hpp"
#include "case_commands.hpp"
#include "command_line.hpp"
#include "commands.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>
#include <karman/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <karman/comm/mpi_context.hpp>
#endif

namespace {

/// Stands in for --help and -h while Kokkos reads the arguments, so that Kokkos does not print
/// its own help before ours (our footer names its options).
constexpr const char* help_stand_in = "--karman-help-stand-in";

/// Before Kokkos starts: hides --help and -h from it (see help_stand_in), and quiets Kokkos's OMP_PROC_BIND
/// warning: the OpenMP runtime has read its environment when the program loaded, and with
/// OMP_PROC_BIND unset it does not bind threads, which is what "false" says; a value the user
/// set stays.
void prepare_for_kokkos(int argc, char** argv) {
  setenv("OMP_PROC_BIND", "false", 0);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      argv[i] = const_cast<char*>(help_stand_in);
  }
}

/// Parses the command line and runs the chosen subcommand; returns the exit code (README "Exit
/// codes": 0 done, 1 error, 2 command-line error, 3 diverged, 4 not converged, 128 + N signal N).
int run_command_line(int argc, char** argv, const karman::comm::Ranks& ranks) {
  CLI::App app{"Karman: portable lattice Boltzmann solver on Kokkos (CPU, CUDA, HIP; mpirun for several ranks)",
               "karman"};
  app.set_version_flag("--version",
                       std::string("karman ") + KARMAN_VERSION_STRING + " (commit " + KARMAN_GIT_COMMIT + ")");
  app.set_config("--config", "",
                 "Read options from a TOML/INI file ([cavity] n = 128 ...), before or after the command");
  bool show_backend = false;
  app.add_flag("--backend-info", show_backend, "Print Kokkos version, backends, device, memory and threads");
  app.footer(
      "Examples:\n"
      "  karman cavity --dim 2 --n 128 --re 100 --until-steady 1e-6 --output cavity-re100\n"
      "  mpirun -np 4 karman cavity --dim 3 --n 64 --re 100 --steps 2000 --layout disaggregated\n"
      "  karman cavity --n 256 --steps 200000 --checkpoint-every 10000 --output run; then after a stop:\n"
      "  karman cavity --n 256 --steps 200000 --checkpoint-every 10000 --output run --restart latest\n"
      "  karman bench --lattice d3q19 --precision float,double --json bench.json\n"
      "Exit codes: 0 done, 1 error, 2 bad command line, 3 diverged, 4 --max-steps before --until-steady,\n"
      "  130/143 stopped by SIGINT/SIGTERM after writing a checkpoint.\n"
      "Kokkos options (--kokkos-num-threads=N, --kokkos-device-id=N, --kokkos-help, ...) are passed to Kokkos.");
  int exit_code = 0;
  karman::app::add_case_commands(app, ranks, exit_code);
  karman::app::add_bench_command(app);
  std::vector<std::string> arguments;
  for (int i = 1; i < argc; ++i) arguments.push_back(std::strcmp(argv[i], help_stand_in) == 0 ? "--help" : argv[i]);
  const bool wants_help = std::find(arguments.begin(), arguments.end(), "--help") != arguments.end();
  try {
    arguments = karman::app::normalise_arguments(app, arguments);
    const std::string config = karman::app::config_file(arguments);
    if (!config.empty() && !wants_help) karman::app::check_config_file(app, config);
  } catch (const karman::Error& e) {
    if (ranks.root()) std::fprintf(stderr, "karman: error: %s\n", e.what());
    return 2;
  }
  try {
    // CLI11 takes the arguments last first.
    app.parse(std::vector<std::string>(arguments.rbegin(), arguments.rend()));
  } catch (const CLI::ParseError& e) {
    // Every rank parses the same arguments; only rank 0 speaks.
    if (!ranks.root()) return e.get_exit_code() == 0 ? 0 : 2;
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "karman: error: %s (see --help)\n", e.what());
    return 2;
  }
  if (show_backend && ranks.root()) karman::app::print_backend_info();
  if (!show_backend && app.get_subcommands().empty()) {
    if (ranks.root()) {
      std::printf("%s", app.help().c_str());
      std::fprintf(stderr, "karman: error: no command given; choose one of cavity, channel, taylor-green, bench\n");
    }
    return 2;
  }
  return exit_code;
}

/// Starts Kokkos in `guard`. Kokkos::initialize throws std::runtime_error when its GPU backend
/// finds no usable device (a HIP or CUDA build on a machine without one); it becomes a
/// karman::Error, so `main` prints "karman: error: ..." and exits 1 instead of std::terminate.
void start_kokkos(std::optional<Kokkos::ScopeGuard>& guard, int& argc, char** argv) {
  try {
    guard.emplace(argc, argv);
  } catch (const std::exception& e) {
    std::string reason = e.what();
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
    throw karman::Error("Kokkos could not start its " + std::string(Kokkos::DefaultExecutionSpace::name()) +
                        " backend (no usable device?): " + reason);
  }
}

}  // namespace

int main(int argc, char** argv) {
#if KARMAN_ENABLE_MPI
  // MPI first, so Kokkos can read the launcher's local rank to pick a GPU; it ends last.
  karman::comm::MpiContext mpi(argc, argv);
  const karman::comm::Ranks ranks(mpi.comm());
#else
  const karman::comm::Ranks ranks;
#endif
  prepare_for_kokkos(argc, argv);
  std::optional<Kokkos::ScopeGuard> kokkos;
  return ranks.run_guarded([&] {
    // Every rank initialises Kokkos; all agree on a failure, so none is left waiting.
    ranks.run([&] { start_kokkos(kokkos, argc, argv); });
    return run_command_line(argc, argv, ranks);
  });
}
