#pragma once
/// \file checkpoint.hpp
/// Checkpoints of a run and restarts from them. A checkpoint of step S is the
/// directory <output>/checkpoints/step_<S, 12 digits>/ holding one file per rank
/// (rank_<r>.h5, see karman/io/checkpoint_file.hpp) and manifest.json, which rank 0 writes last
/// once every rank's file is on disk: a directory without a manifest is incomplete (a run killed
/// while writing) and is ignored and later removed. The rank files tile the global box with the
/// ranks' boxes (slabs of whole planes or Cartesian blocks), so a restart may use another rank
/// count, decomposition (slabs or --ranks-per-axis), layout or pattern.

#include <karman/comm/ranks.hpp>
#include <karman/lbm/flow_solver.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace karman::app {

/// A complete checkpoint as its manifest describes it.
struct CheckpointManifest {
  std::filesystem::path directory;  ///< the step_<S> directory
  long long step = 0;               ///< time steps done
  nlohmann::json document;          ///< manifest.json as read
  /// The configuration of the run that wrote it (case, parameters, variant, extents, run options).
  const nlohmann::json& configuration() const { return document.at("configuration"); }
  /// What the run had recorded up to the checkpoint's step (its outputs derive from it).
  const nlohmann::json& history() const { return document.at("history"); }
};

/// Collective: writes `solver`'s state (populations_complete() must hold) and rank 0's `history`
/// of the run (exactly: JSON numbers round-trip doubles) as the checkpoint of its current step, then keeps the `keep`
/// newest complete checkpoints of `output` and removes the others and incomplete ones. On any rank's failure every rank
/// throws one karman::Error and the earlier checkpoints stay. Returns the bytes of the rank files, summed over ranks.
double write_checkpoint(const comm::Ranks& ranks, const std::filesystem::path& output, lbm::FlowSolver& solver,
                        const nlohmann::json& configuration, const nlohmann::json& history, int keep = 2);

/// Checkpoints for `--restart WHAT`: a checkpoint directory or its manifest.json (one candidate),
/// or "latest": every complete checkpoint under `output`, newest first. Reads manifests only;
/// throws karman::Error when there is none or a named one is not a checkpoint.
std::vector<CheckpointManifest> restart_candidates(const std::string& what, const std::filesystem::path& output);

/// Collective: loads the first of `candidates` whose files are complete and verify (sizes,
/// checksums, extents, populations and precision against `solver`) into `solver`, setting its
/// step count; rank 0 says which candidates it skipped and why. Throws karman::Error when none
/// verifies.
CheckpointManifest load_checkpoint(const comm::Ranks& ranks, const std::vector<CheckpointManifest>& candidates,
                                   lbm::FlowSolver& solver);

}  // namespace karman::app
