#include <karman/lbm/solver_factory.hpp>

#include <karman/core/error.hpp>
#include <karman/core/layouts.hpp>
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/solver.hpp>
#include <karman/lbm/solver_variant.hpp>

namespace karman::lbm {
namespace {

template <class L, class T>
std::unique_ptr<FlowSolver> by_layout(const SolverSetup& setup) {
  const std::string& layout = setup.variant.layout;
  if (layout == "aos") return detail::make_solver_variant<L, T, AoS>(setup);
  if (layout == "csoa") return detail::make_solver_variant<L, T, CSoADefault>(setup);
  if (layout == "disaggregated") return detail::make_solver_variant<L, T, Disaggregated>(setup);
  return detail::make_solver_variant<L, T, SoA>(setup);
}

template <class L>
std::unique_ptr<FlowSolver> by_precision(const SolverSetup& setup) {
  return setup.variant.precision == "float" ? by_layout<L, float>(setup) : by_layout<L, double>(setup);
}

/// Names were validated by make_solver.
std::unique_ptr<FlowSolver> by_lattice(const SolverSetup& setup) {
  if (setup.variant.lattice == "d2q9") return by_precision<D2Q9>(setup);
  if (setup.variant.lattice == "d3q19") return by_precision<D3Q19>(setup);
  return by_precision<D3Q27>(setup);
}

}  // namespace

std::unique_ptr<FlowSolver> make_solver(const SolverSetup& setup) {
  const Variant& v = setup.variant;
  require_name("lattice", v.lattice, {"d2q9", "d3q19", "d3q27"});
  require_name("precision", v.precision, {"float", "double"});
  require_name("layout", v.layout, {"aos", "soa", "csoa", "disaggregated"});
  require_name("collision", v.collision, {"bgk", "trt"});
  require_name("pattern", v.pattern, {"ab", "aa"});
  validate(setup.global, "karman::lbm::make_solver");
  const int dim = setup.global.dimension();
  if ((v.lattice == "d2q9") != (dim == 2)) {
    throw Error("lattice '" + v.lattice + "' does not match a " + std::to_string(dim) + "D box (" +
                std::to_string(setup.global.nx) + "x" + std::to_string(setup.global.ny) + "x" +
                std::to_string(setup.global.nz) + "); use " + (dim == 2 ? "d2q9" : "d3q19 or d3q27"));
  }
  const double omega = setup.relaxation.omega;
  if (!(omega > 0.0 && omega < 2.0)) {
    throw Error("relaxation rate omega = " + std::to_string(omega) +
                " out of range (0, 2), i.e. tau = " + std::to_string(1.0 / omega) + " must be > 1/2");
  }
  return by_lattice(setup);
}

}  // namespace karman::lbm
