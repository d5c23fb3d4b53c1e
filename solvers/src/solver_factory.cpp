#include <karman/lbm/solver_factory.hpp>

#include <karman/core/error.hpp>
#include <karman/lbm/solver.hpp>

namespace karman::lbm {

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
  const bool single = v.precision == "float";
  if (v.lattice == "d2q9")
    return single ? detail::make_solver_d2q9_float(setup) : detail::make_solver_d2q9_double(setup);
  if (v.lattice == "d3q19")
    return single ? detail::make_solver_d3q19_float(setup) : detail::make_solver_d3q19_double(setup);
  return single ? detail::make_solver_d3q27_float(setup) : detail::make_solver_d3q27_double(setup);
}

}  // namespace karman::lbm
