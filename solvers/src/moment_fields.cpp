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

}  // namespace karman::lbm
