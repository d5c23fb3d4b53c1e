#include "lbm_test_support.hpp"

#include <karman/lbm/solver_factory.hpp>

namespace karman::lbm::test {

HostMoments host_moments(FlowSolver& solver) {
  const auto m = solver.moments();
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  HostMoments out;
  out.rho.assign(rho.data(), rho.data() + rho.extent(0));
  out.u.resize(3 * rho.extent(0));
  for (std::size_t k = 0; k < rho.extent(0); ++k)
    for (int d = 0; d < 3; ++d) out.u[3 * k + d] = u(k, d);
  return out;
}

HostMoments run(const SolverSetup& setup, int steps) {
  auto solver = make_solver(setup);
  solver->advance(steps);
  return host_moments(*solver);
}

}  // namespace karman::lbm::test
