#pragma once
/// \file level_options.hpp
/// `--levels` and the options that go with it, shared by the case commands that run on a refined
/// grid (cavity, channel, cylinder): where each finer level lies, the schedule and the explosion,
/// the check that the box is a whole number of coarsest blocks, and the CaseDefinition's switch to
/// the refined solver.

#include "case_runner.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/core/extents.hpp>

#include <CLI/CLI.hpp>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace karman::app {

/// The refined grid of a case's `--levels`: level l's blocks refined closer than `depths[l - 1]`
/// finest voxels to what the case refines around (the last depth for the levels past the list's
/// end).
struct LevelOptions {
  int levels = 1;
  std::vector<int> depths{8};
  std::string schedule = "disaggregated";
  std::string explosion = "constant";
};

/// Adds --levels and the options that need it to `cmd`; `where` says where the finest level lies
/// and `around` what --refine-depth counts from.
void add_level_options(CLI::App& cmd, LevelOptions& r, const std::string& where, const std::string& around);

/// An axis of a case's box in the words of its command line: the option that sets it, its value,
/// and the voxels the box has besides (walls).
struct BoxAxis {
  std::string option;
  int value = 0;
  int added = 0;
};

/// Throws karman::Error, naming the option and the nearest values that fit, where an axis of the
/// box is not a whole number of the coarsest blocks of `r`'s levels.
void require_refined_box(const std::string& command, const LevelOptions& r, int dim, const std::vector<BoxAxis>& axes);

/// Whether a block of the finest box, its first finest voxel `first` and `span` finest voxels a
/// side, lies closer than `depth` finest voxels to what a case refines around.
using RefineNear = std::function<bool(const std::array<int, 3>& first, int span, int depth)>;

/// Near the sides of `box` along the axes `walled` names.
RefineNear near_box_sides(const Extents& box, std::array<bool, 3> walled);

/// Runs `def` on the refined grid of `r`, each finer level's blocks where `near` says they lie
/// within its depth (`r.depths`): adds the refinement to the parameters a restart compares, and the
/// leaf voxels of each level and the populations' bytes a leaf voxel to the summary.
void refine_case(const comm::Ranks& ranks, const LevelOptions& r, RefineNear near, CaseDefinition& def);

}  // namespace karman::app
