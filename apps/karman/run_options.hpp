#pragma once
/// \file run_options.hpp
/// Options every case subcommand shares, registered once on each subcommand.

#include <karman/lbm/solver_setup.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace karman::app {

/// How long to run, what to compute with, and where output goes.
struct RunOptions {
  lbm::Variant variant;                  ///< lattice, precision, layout, pattern, collision
  double bulk_rate = 1.0;                ///< MRT, CM: relaxation rate of the bulk (trace) moment
  double high_order_rate = 1.0;          ///< MRT, CM: relaxation rate of third- and higher-order moments
  long steps = 0;                        ///< fixed number of steps (0: use until_steady)
  double until_steady = 0;               ///< stop when the residual falls below this (0: off)
  long max_steps = 1000000;              ///< cap for --until-steady
  long check_every = 0;                  ///< steps between residual checks (0: chosen from the size)
  std::string output = "karman-output";  ///< output directory
  long output_every = 0;                 ///< write fields every K steps (0: only at the end)
  bool overlap = true;                   ///< overlap halo exchange with interior work (MPI)
  std::string ranks_per_axis;            ///< Cartesian process grid "AxBxC" ("AxB" in 2D) or "auto"; empty: slabs
  std::string mpi_gpu_aware = "auto";    ///< auto | on | off
  bool no_fields = false;                ///< skip HDF5 field output (benchmark runs)
  bool halo_pack = false;                ///< pack halos into one buffer per neighbour (SoA + pack)
  std::string schedule = "split";        ///< split | fused: bulk and boundary kernels apart or one kernel
  bool quiet = false;                    ///< no progress lines
  long checkpoint_every = 0;             ///< write a checkpoint every K steps (0: off)
  double checkpoint_interval = 0;        ///< write a checkpoint every S seconds of run time (0: off)
  std::string restart;                   ///< checkpoint to continue from: a directory or "latest"
  bool force = false;                    ///< restart although physical parameters changed
  bool overwrite = false;                ///< replace an earlier run's files in the output directory
  long inject_nan = -1;                  ///< testing aid: NaN into the populations after this step
};

/// Exit codes of a case run (README "Exit codes"); 1 is any error, 2 a command-line error.
enum ExitCode : int {
  exit_diverged = 3,         ///< NaN/Inf or a density out of range was found
  exit_not_converged = 4,    ///< --max-steps reached before --until-steady's tolerance
  exit_signal_offset = 128,  ///< stopped by signal N after a checkpoint: 128 + N (130 SIGINT, 143 SIGTERM)
};

/// Checks RunOptions for contradictions the parser cannot see; throws karman::Error naming the
/// options and the accepted values.
void validate_run_options(const RunOptions& options);

/// CLI11 checks with readable messages: whole numbers >= 1, and finite numbers > 0 or >= 0
/// (nan and inf refused).
CLI::Validator positive_integer();
CLI::Validator positive_finite();
CLI::Validator non_negative_finite();
/// A relaxation rate: a finite number in (0, 2).
CLI::Validator relaxation_rate();

/// Adds the shared options to a case subcommand; `dims` is the accepted --lattice set.
void add_run_options(CLI::App& command, RunOptions& options);

}  // namespace karman::app
