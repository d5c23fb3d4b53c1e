// `--levels` and its options for the case commands (level_options.hpp).
#include "level_options.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/refined_solver_factory.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>

namespace karman::app {

void add_level_options(CLI::App& cmd, LevelOptions& r, const std::string& where, const std::string& around) {
  auto* levels = cmd.add_option("--levels", r.levels,
                                "Grid levels, 2:1 apart (1 to 5): the finest " + where +
                                    ", coarser elsewhere (docs/multiresolution.md)")
                     ->check(CLI::Range(1, 5))
                     ->capture_default_str();
  cmd.add_option("--refine-depth", r.depths,
                 "With --levels: finest voxels from " + around +
                     " that each finer level reaches at least: one depth for all, or one a level, finest first "
                     "(e.g. 64,112)")
      ->check(CLI::Range(1, 1 << 20))
      ->delimiter(',')
      ->needs(levels)
      ->capture_default_str();
  cmd.add_option("--level-schedule", r.schedule,
                 "With --levels: disaggregated (stream and collide fused away from level jumps) or baseline "
                 "(separate passes); the same bits")
      ->check(CLI::IsMember({"disaggregated", "baseline"}))
      ->needs(levels)
      ->capture_default_str();
  cmd.add_option("--explosion", r.explosion,
                 "With --levels: how a coarse value reaches the finer voxels: constant or linear (plus its "
                 "gradient)")
      ->check(CLI::IsMember({"constant", "linear"}))
      ->needs(levels)
      ->capture_default_str();
}

void require_refined_box(const std::string& command, const LevelOptions& r, int dim, const std::vector<BoxAxis>& axes) {
  const int tile = lbm::refined_box_multiple(dim, r.levels);
  for (const BoxAxis& axis : axes) {
    const int box = axis.value + axis.added;
    if (box % tile == 0) continue;
    const int below = std::max(tile, box / tile * tile) - axis.added, above = (box / tile + 1) * tile - axis.added;
    const std::string besides =
        axis.added ? " (" + axis.option.substr(2) + " + " + std::to_string(axis.added) + " wall voxels)" : "";
    throw Error(command + ": " + axis.option + " " + std::to_string(axis.value) + " with --levels " +
                std::to_string(r.levels) + ": the box" + besides + " must be a multiple of " + std::to_string(tile) +
                " (coarsest blocks of " + std::to_string(lbm::refined_block_edge(dim)) + " voxels); e.g. " +
                axis.option + " " + std::to_string(below) + " or " + axis.option + " " + std::to_string(above));
  }
}

RefineNear near_box_sides(const Extents& box, std::array<bool, 3> walled) {
  return [box, walled](const std::array<int, 3>& first, int span, int depth) {
    for (int a = 0; a < 3; ++a) {
      if (!walled[std::size_t(a)]) continue;
      if (first[std::size_t(a)] < depth || first[std::size_t(a)] + span > box.extent(a) - depth) return true;
    }
    return false;
  };
}

void refine_case(const comm::Ranks& ranks, const LevelOptions& r, RefineNear near, CaseDefinition& def) {
  lbm::Refinement refinement;
  refinement.levels = r.levels;
  refinement.schedule = r.schedule == "baseline" ? lbm::RefinedSchedule::baseline : lbm::RefinedSchedule::disaggregated;
  refinement.explosion = r.explosion == "linear" ? lbm::Explosion::linear : lbm::Explosion::constant;
  const Extents box = def.setup.global;
  if (int(r.depths.size()) > r.levels - 1) {
    throw Error("--refine-depth: " + std::to_string(r.depths.size()) + " depths for --levels " +
                std::to_string(r.levels) + ": give one, or at most one for each of the " +
                std::to_string(r.levels - 1) + " finer level(s)");
  }
  const int edge = lbm::refined_block_edge(box.nz > 1 ? 3 : 2);
  refinement.refine = [near = std::move(near), depths = r.depths, edge](const std::array<int, 3>& first, int span) {
    // A block of level k (span edge 2^k) is split into level k - 1, which reaches depths[k - 1].
    std::size_t finer = 0;
    while ((edge << (finer + 1)) < span) ++finer;
    return near(first, span, depths[std::min(finer, depths.size() - 1)]);
  };
  def.grid = lbm::CompiledGrid::refined;
  def.make_solver = [refinement](const lbm::SolverSetup& setup) { return lbm::make_refined_solver(setup, refinement); };
  lbm::RefinedGridFacts facts = lbm::refined_grid_facts(def.setup, refinement);
  def.voxel_note = std::move(facts.voxel_note);
  const std::vector<double>& leaves = facts.leaf_voxels;
  nlohmann::json per_level = nlohmann::json::array();
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    const int steps = 1 << (int(leaves.size()) - 1 - int(l));
    def.updated_voxels += leaves[l] * steps;
    per_level.push_back({{"level", l}, {"leaf_voxels", leaves[l]}, {"steps_per_coarse_step", steps}});
  }
  // The populations' bytes over the ranks (the started hook is collective), per leaf voxel.
  auto bytes = std::make_shared<double>(0.0);
  def.started = [bytes, &ranks](lbm::FlowSolver& solver) { *bytes = ranks.sum(double(solver.population_bytes())); };
  const double leaf_total = std::accumulate(leaves.begin(), leaves.end(), 0.0);
  def.finish = [finish = def.finish, per_level, bytes, leaf_total](
                   const GlobalFields& g, const std::filesystem::path& dir, nlohmann::json& summary) {
    finish(g, dir, summary);
    summary["levels"] = per_level;
    summary["population_bytes_per_leaf_voxel"] = *bytes / leaf_total;
  };
  def.parameters["levels"] = r.levels;
  // One depth stays a number, as checkpoints written before depths per level hold it.
  def.parameters["refine_depth"] = r.depths.size() == 1 ? nlohmann::json(r.depths[0]) : nlohmann::json(r.depths);
  def.parameters["level_schedule"] = r.schedule;
  def.parameters["explosion"] = r.explosion;
}

}  // namespace karman::app
