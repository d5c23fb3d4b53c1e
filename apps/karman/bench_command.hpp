#pragma once
/// \file bench_command.hpp
/// The `karman bench` subcommand: registers its options and runs Karman::perf's run_bench (or
/// run_scaling) when the command line names it.

#include <CLI/CLI.hpp>

namespace karman::app {

/// Adds `bench` to `app`: sweeps of lattice/precision/layout/pattern/collision (comma-separated
/// lists), --n, --steps, --warmup, --repeat, --copy-mib, --copy-bandwidth-only and --json FILE.
/// Prints a table on stdout; needs Kokkos initialised before the app parses.
void add_bench_command(CLI::App& app);

}  // namespace karman::app
