#pragma once
/// \file refined_solver_factory.hpp
/// Builds the compiled refined-grid solver variant (refined_solver.hpp) a SolverSetup names, on
/// the levels a Refinement asks for. Each (lattice, precision) is instantiated in its own generated
/// translation unit, SoA (the levels' layout).

#include <karman/core/refined/refined_levels.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/refined_options.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace karman::lbm {

/// Where a case's grid is refined: `levels` levels 2:1 apart (1: none), the finest the setup's
/// box. `refine(first, span)` says whether to split a block whose first voxel is `first` and which
/// spans `span` voxels along each axis, both in the finest level's voxels; the 2:1 balance then
/// refines what it needs beside (refined_levels.hpp). The schedule and the explosion are the
/// step's (refined_options.hpp).
struct Refinement {
  int levels = 1;
  std::function<bool(const std::array<int, 3>& first, int span)> refine;
  RefinedSchedule schedule = RefinedSchedule::disaggregated;
  Explosion explosion = Explosion::constant;
};

/// The block edge of a refined grid's levels: the block-sparse grid's (sparse_block_edge.hpp).
int refined_block_edge(int dimension);

/// What the box of a refined grid of `levels` levels must be a multiple of along each axis: a
/// coarsest block, in finest voxels.
inline int refined_box_multiple(int dimension, int levels) { return refined_block_edge(dimension) << (levels - 1); }

/// The levels `refinement` asks for over the box of `setup` (its finest level), blocks of `edge`
/// voxels a side.
template <int Dim>
RefinedLevels<Dim> refined_levels(const SolverSetup& setup, const Refinement& refinement, int edge) {
  const int top = refinement.levels - 1;
  const Extents& box = setup.global;
  return RefinedLevels<Dim>(
      {box.nx >> top, box.ny >> top, Dim == 3 ? box.nz >> top : 1}, edge, setup.periodic, refinement.levels,
      [&](int level, const LevelBlockCoordinates& at) {
        const int span = edge << level;
        return refinement.refine && refinement.refine({at[0] * span, at[1] * span, Dim == 3 ? at[2] * span : 0}, span);
      });
}

/// Leaf voxels (walls included) of each level of `levels`, level 0 the finest.
template <int Dim>
std::vector<double> leaf_voxels(const RefinedLevels<Dim>& levels) {
  double block = 1;
  for (int a = 0; a < Dim; ++a) block *= levels.block_edge();
  std::vector<double> voxels;
  for (int l = 0; l < levels.levels(); ++l) voxels.push_back(double(levels.leaves(l).size()) * block);
  return voxels;
}

/// What a case reports of the grid `refinement` makes of the box of `setup`, its levels built once.
struct RefinedGridFacts {
  /// Leaf voxels of each level, level 0 the finest, which takes 2^(levels - 1) steps per coarsest
  /// step (Neon's MLUPS counts Σ_l 2^(levels - 1 - l) N_l updates a coarsest step, seed 000 §VI-C).
  std::vector<double> leaf_voxels;
  /// Where voxel (x, y, z) of the box (the finest level) lies: "level l (of N, 0 the finest), its
  /// voxel (...)", the leaf covering it, for a divergence report.
  std::function<std::string(int x, int y, int z)> voxel_note;
};

/// The facts of the grid `refinement` makes of the box of `setup` (the same checks as
/// make_refined_solver).
RefinedGridFacts refined_grid_facts(const SolverSetup& setup, const Refinement& refinement);

/// Checks the setup (names, sizes, lattice vs dimension, rates) and the refinement (1 to 5 levels;
/// the box a whole number of coarsest blocks along each axis) and builds its solver; throws
/// karman::Error naming the bad value and what is accepted.
std::unique_ptr<FlowSolver> make_refined_solver(const SolverSetup& setup, const Refinement& refinement);

namespace detail {
/// The refined solver of `setup` for lattice L and precision T (the collision chosen inside);
/// defined in refined_solver.hpp, instantiated in a generated unit per (lattice, precision).
template <class L, class T>
std::unique_ptr<FlowSolver> make_refined_solver_variant(const SolverSetup& setup, const Refinement& refinement);
}  // namespace detail

}  // namespace karman::lbm
