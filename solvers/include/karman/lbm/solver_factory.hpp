#pragma once
/// \file solver_factory.hpp
/// Builds the compiled solver variant a SolverSetup names. Each (lattice, precision) pair is
/// instantiated in its own translation unit to spread the compile over cores.

#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <memory>

namespace karman::lbm {

/// Checks the setup (names, sizes, lattice vs dimension) and builds its solver; throws
/// karman::Error naming the bad value and what is accepted.
std::unique_ptr<FlowSolver> make_solver(const SolverSetup& setup);

namespace detail {
std::unique_ptr<FlowSolver> make_solver_d2q9_float(const SolverSetup&);
std::unique_ptr<FlowSolver> make_solver_d2q9_double(const SolverSetup&);
std::unique_ptr<FlowSolver> make_solver_d3q19_float(const SolverSetup&);
std::unique_ptr<FlowSolver> make_solver_d3q19_double(const SolverSetup&);
std::unique_ptr<FlowSolver> make_solver_d3q27_float(const SolverSetup&);
std::unique_ptr<FlowSolver> make_solver_d3q27_double(const SolverSetup&);
}  // namespace detail

}  // namespace karman::lbm
