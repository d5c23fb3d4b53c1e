#pragma once
// Host copies of a solver's moments, for comparing runs.
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <vector>

namespace karman::lbm::test {

/// Density and velocity of every owned voxel on the host (u as (voxel, axis), axis fastest).
struct HostMoments {
  std::vector<double> rho, u;
};

/// Copies a solver's current moments to the host.
HostMoments host_moments(FlowSolver& solver);

/// True when this build holds the solver of `v`. A build of a few -DKARMAN_VARIANTS (`make
/// sanitize`) runs the variants it holds and passes over the others; the default build holds all.
inline bool compiled(const Variant& v) { return is_compiled(v.lattice, v.precision, v.layout); }

/// Builds the solver of `setup`, runs `steps` steps, returns its moments.
HostMoments run(const SolverSetup& setup, int steps);

}  // namespace karman::lbm::test
