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

}  // namespace karman::lbm
