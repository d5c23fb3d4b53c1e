#pragma once
/// \file solver_factory.hpp
/// Builds the compiled solver variant a SolverSetup names. Each (lattice, precision, layout) is
/// instantiated in its own generated translation unit to spread the compile over cores.

#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <memory>

namespace karman::lbm {

/// Checks the setup (names, sizes, lattice vs dimension) and builds its solver; throws
/// karman::Error naming the bad value and what is accepted.
std::unique_ptr<FlowSolver> make_solver(const SolverSetup& setup);

/// The grids a variant is compiled for, each from its own list of generated units.
enum class CompiledGrid { slabs, cartesian_blocks, block_sparse, refined };

/// Throws karman::Error naming what the build holds and the exact configure line that adds
/// `variant` when this build does not hold it for `grid`: commands call it before they allocate
/// or write anything (a variant set is chosen at configure time: docs/building.md).
void require_compiled(const Variant& variant, CompiledGrid grid);

}  // namespace karman::lbm
