#pragma once
/// \file run_options.hpp
/// Options every case subcommand shares (issue 4 item 5), registered once on each subcommand.

#include <karman/lbm/solver_setup.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace karman::app {

/// How long to run, what to compute with, and where output goes.
struct RunOptions {
  lbm::Variant variant;                  ///< lattice, precision, layout, pattern, collision
  long steps = 0;                        ///< fixed number of steps (0: use until_steady)
  double until_steady = 0;               ///< stop when the residual falls below this (0: off)
  long max_steps = 1000000;              ///< cap for --until-steady
  long check_every = 0;                  ///< steps between residual checks (0: chosen from the size)
  std::string output = "karman-output";  ///< output directory
  long output_every = 0;                 ///< write fields every K steps (0: only at the end)
  bool overlap = true;                   ///< overlap halo exchange with interior work (MPI)
  std::string mpi_gpu_aware = "auto";    ///< auto | on | off
  bool no_fields = false;                ///< skip HDF5 field output (benchmark runs)
  bool halo_pack = false;                ///< pack halos into one buffer per neighbour (SoA + pack)
  bool quiet = false;                    ///< no progress lines
};

/// Adds the shared options to a case subcommand; `dims` is the accepted --lattice set.
void add_run_options(CLI::App& command, RunOptions& options);

}  // namespace karman::app
