#pragma once
/// \file case_runner.hpp
/// The time loop every case shares: build the solver, step with progress and residual checks,
/// write fields, then hand the final global fields to the case for its own outputs and write
/// summary.json.

#include "global_fields.hpp"
#include "run_options.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace karman::app {

/// A field a case writes besides density and velocity (e.g. a solid marker): its name and its
/// values on this rank's owned box, in box order (OwnedBox, x fastest).
struct ExtraField {
  std::string name;
  std::function<std::vector<double>(const lbm::OwnedBox& box)> values;
};

/// A case: its solver setup, where its box sits in space, and what it writes besides fields.
/// The members after `finish` are for cases on another grid than the dense box (porous media
/// on the block-sparse grid); their defaults are the dense box's.
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

  /// The grid whose compiled variants the run needs (lbm::require_compiled); empty: slabs, or
  /// Cartesian blocks with --ranks-per-axis.
  std::optional<lbm::CompiledGrid> grid;
  /// Builds the solver (collectively checked by the runner); empty: lbm::make_solver.
  std::function<std::unique_ptr<lbm::FlowSolver>(const lbm::SolverSetup&)> make_solver;
  /// Refuses a run that would not fit in memory (throws karman::Error), called with the rank
  /// count before anything is allocated; empty: the dense box's estimate.
  std::function<void(int ranks)> check_memory;
  /// Called on every rank once the solver is built and a restart loaded (collective calls
  /// allowed), e.g. to sum figures of the grid over the ranks.
  std::function<void(lbm::FlowSolver& solver)> started;
  /// Voxels one step updates, summed over the ranks, for MLUPS; 0: every voxel of the box.
  double updated_voxels = 0;
  /// A figure of the whole flow from this rank's moments (in its owned box's order; collective)
  /// whose relative change between checks is the steady-state residual; empty: the velocity
  /// field's |u(t) - u(t-k)| / |u(t)|.
  std::function<double(const lbm::MomentFields& moments)> steady_figure;
  /// Text the progress line shows after the residual, e.g. the permeability so far, from the
  /// steady figure of the last check (NaN before the first).
  std::function<std::string(double steady_figure)> progress_note;
  /// Fields written beside density and velocity.
  std::vector<ExtraField> extra_fields;
  /// Where voxel (x, y, z) of the box lies in the case's own terms, added to a divergence report
  /// (a refined grid's level and voxel there); empty: nothing.
  std::function<std::string(int x, int y, int z)> voxel_note;
  /// What a diverged run can change; empty: the dense cases' advice (--re, resolution, collision).
  std::string stability_advice;
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
