#pragma once
/// \file sparse_solver_factory.hpp
/// Builds the compiled block-sparse solver variant a SolverSetup names. Each (lattice,
/// precision, layout) is instantiated in its own generated translation unit, for the float
/// and double precisions and the SoA and CSoA layouts.

#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <memory>

namespace karman::lbm {

/// Checks the setup (names, sizes, lattice vs dimension, at least two block planes per rank)
/// and builds its solver on a block-sparse grid of `setup.geometry` with `grouping`, the ranks
/// of `setup.communicator` dividing its block planes; throws karman::Error naming the bad
/// value and what is accepted. The setup's dense-only field `schedule` is ignored.
std::unique_ptr<FlowSolver> make_sparse_solver(const SolverSetup& setup,
                                               BlockGrouping grouping = BlockGrouping::memory);

namespace detail {
/// The sparse solver of `setup` for lattice L, precision T and layout Layout (collision,
/// pattern and features chosen inside); defined in sparse_solver.hpp.
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_sparse_solver_variant(const SolverSetup& setup, BlockGrouping grouping);
/// The same for one collision, instantiated in the variant's unit or, with
/// KARMAN_SPLIT_COLLISIONS, in a unit of its own (solver_variant.hpp's make_collision_variant).
template <class L, class T, class Layout, class Collision>
std::unique_ptr<FlowSolver> make_sparse_collision_variant(const SolverSetup& setup, BlockGrouping grouping);
}  // namespace detail

}  // namespace karman::lbm
