// Every D2Q9 double solver variant (layouts x collisions x patterns x features).
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/solver_dispatch.hpp>
#include <karman/lbm/solver_factory.hpp>

namespace karman::lbm::detail {

std::unique_ptr<FlowSolver> make_solver_d2q9_double(const SolverSetup& setup) {
  return make_for_lattice<D2Q9, double>(setup);
}

}  // namespace karman::lbm::detail
