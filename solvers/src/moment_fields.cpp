#include <karman/lbm/flow_solver.hpp>

namespace karman::lbm {

double total_density(const MomentFields& m) {
  const auto rho = m.rho;
  double mass = 0;
  Kokkos::parallel_reduce(
      "karman::mass", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, rho.extent(0)),
      KOKKOS_LAMBDA(std::size_t k, double& sum) { sum += rho(k); }, mass);
  return mass;
}

double kinetic_energy(const MomentFields& m) {
  const auto rho = m.rho;
  const auto u = m.u;
  double energy = 0;
  Kokkos::parallel_reduce(
      "karman::kinetic_energy", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, rho.extent(0)),
      KOKKOS_LAMBDA(std::size_t k, double& sum) {
        sum += 0.5 * rho(k) * (u(k, 0) * u(k, 0) + u(k, 1) * u(k, 1) + u(k, 2) * u(k, 2));
      },
      energy);
  return energy;
}

}  // namespace karman::lbm
