#pragma once
/// \file case_runner.hpp
/// The time loop every case shares: build the solver, step with progress and residual checks,
/// write fields, then hand the final global fields to the case for its own outputs and write
/// summary.json.

#include "run_options.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace karman::app {

/// The final density and velocity of the whole box on rank 0, in (z, y, x) order, x fastest.
struct GlobalFields {
  Extents extents;
  std::vector<double> rho, ux, uy, uz;
  /// Linear index of (x, y, z).
  std::size_t at(int x, int y, int z) const { return std::size_t(extents.index(x, y, z)); }
};

/// A case: its solver setup, where its box sits in space, and what it writes besides fields.
struct CaseDefinition {
  std::string name;              ///< subcommand name, e.g. "cavity"
  lbm::SolverSetup setup;        ///< the solver setup (variant filled from options)
  double spacing = 1.0;          ///< physical size of a voxel, for viewers
  double origin[3] = {0, 0, 0};  ///< position of voxel (0, 0, 0)'s lower corner
  nlohmann::json parameters;     ///< case parameters for summary.json
  /// Steps between calls of `observe` (0: never).
  long observe_every = 0;
  /// Called on every rank after each observe_every-th step, e.g. to record the force on a body.
  std::function<void(lbm::FlowSolver& solver)> observe;
  /// The series observe() records, by name, pointing into the case's own history (which its
  /// observe and finish keep alive): a checkpoint stores them and a restart reads them back, so
  /// that a restarted run's outputs derive from the whole run's samples.
  std::map<std::string, std::vector<double>*> history;
  /// Case outputs from the final fields, on rank 0; adds its figures to `summary`.
  std::function<void(const GlobalFields&, const std::filesystem::path& dir, nlohmann::json& summary)> finish;
};

/// A remaining time for progress lines: seconds, minutes or hours.
std::string format_duration(double seconds);

/// A byte count for people: "1.5 GB" (powers of 1000, three digits).
std::string readable_bytes(double bytes);

/// Bytes of memory this host offers now (MemAvailable), or 0 when unknown.
double available_host_bytes();

/// Where a summary.json came from: "backend" (Kokkos version, execution space, device,
/// concurrency) and "karman" (version, commit).
void add_provenance(nlohmann::json& summary);

/// Runs a case; returns the process exit code. Collective over `ranks`.
/// Claims `directory` for this run: prepares it (io::prepare_output_directory), and on the `root`
/// rank locks it for the run's life, refusing one another run holds, and with `overwrite`
/// removes what the earlier run listed in its manifest, saying what; then every rank lists what
/// it writes there. Call on every rank inside Ranks::run, so that all share rank 0's refusal.
std::unique_ptr<io::DirectoryLock> claim_output_directory(const std::filesystem::path& directory, bool root,
                                                          bool overwrite);

int run_case(const comm::Ranks& ranks, const RunOptions& options, CaseDefinition& definition);

}  // namespace karman::app
