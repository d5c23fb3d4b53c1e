// Every D3Q19 float solver variant (layouts x collisions x patterns x features).
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/solver_dispatch.hpp>
#include <karman/lbm/solver_factory.hpp>

namespace karman::lbm::detail {

std::unique_ptr<FlowSolver> make_solver_d3q19_float(const SolverSetup& setup) {
  return make_for_lattice<D3Q19, float>(setup);
}

}  // namespace karman::lbm::detail
