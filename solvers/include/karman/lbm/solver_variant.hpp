#pragma once
/// \file solver_variant.hpp
/// The entry point of one compiled (lattice, precision, layout): declared here for the
/// factory, defined in solver_dispatch.hpp and instantiated once per combination in the
/// translation units solvers/CMakeLists.txt generates from src/solver_variant.cpp.in.

#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <memory>

namespace karman::lbm::detail {

/// The solver of `setup` for lattice L, precision T and layout Layout (collision, pattern and
/// features chosen inside from the setup).
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_solver_variant(const SolverSetup& setup);

/// The same for one collision (pattern and features from the setup). make_solver_variant calls
/// it for the collision the setup names; each is instantiated in the unit of its (lattice,
/// precision, layout), or in a unit of its own with KARMAN_SPLIT_COLLISIONS, so that a many-core
/// build compiles a variant's collisions side by side.
template <class L, class T, class Layout, class Collision>
std::unique_ptr<FlowSolver> make_collision_variant(const SolverSetup& setup);

/// The same on the Cartesian blocks of setup.process_grid (MPI builds), from the units of
/// KARMAN_CARTESIAN_VARIANTS (src/block_solver_variant.cpp.in).
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_block_solver_variant(const SolverSetup& setup);

}  // namespace karman::lbm::detail
