#include <karman/lbm/solver_factory.hpp>

#include <karman/core/error.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/solver_variant.hpp>
#include <karman/lbm/variants.hpp>

namespace karman::lbm {
namespace {

/// "d3q19/float/soa, ...": what this build holds, for the message refusing anything else.
std::string compiled_list() {
  std::string list;
  for (const CompiledVariant& v : compiled_variants)
    list += (list.empty() ? "" : ", ") + std::string(v.lattice) + "/" + std::string(v.precision) + "/" +
            std::string(v.layout);
  return list;
}

}  // namespace

std::unique_ptr<FlowSolver> make_solver(const SolverSetup& setup) {
  const Variant& v = setup.variant;
  require_known<Lattices>(v.lattice);
  require_known<Precisions>(v.precision);
  require_known<Layouts>(v.layout);
  require_known<Collisions>(v.collision);
  require_known<Patterns>(v.pattern);
  require_collision_for(v.collision, v.lattice);
  validate(setup.global, "karman::lbm::make_solver");
  const int dim = setup.global.dimension();
  if (lattice_dimension(v.lattice) != dim) {
    throw Error("lattice '" + v.lattice + "' does not match a " + std::to_string(dim) + "D box (" +
                std::to_string(setup.global.nx) + "x" + std::to_string(setup.global.ny) + "x" +
                std::to_string(setup.global.nz) + "); use " + (dim == 2 ? "d2q9" : "d3q19 or d3q27"));
  }
  const double omega = setup.relaxation.omega;
  if (!(omega > 0.0 && omega < 2.0)) {
    throw Error("relaxation rate omega = " + std::to_string(omega) +
                " out of range (0, 2), i.e. tau = " + std::to_string(1.0 / omega) + " must be > 1/2");
  }
  return dispatch<Lattices>(v.lattice, [&](auto lattice) {
    using L = tag_type<decltype(lattice)>;
    return dispatch<Precisions>(v.precision, [&](auto precision) {
      using T = tag_type<decltype(precision)>;
      return dispatch<Layouts>(v.layout, [&](auto layout) -> std::unique_ptr<FlowSolver> {
        using Layout = tag_type<decltype(layout)>;
        if constexpr (is_compiled(L::name, VariantName<T>::value, Layout::name)) {
          return detail::make_solver_variant<L, T, Layout>(setup);
        } else {
          throw Error("solver " + v.lattice + "/" + v.precision + "/" + v.layout +
                      " is not compiled into this build of Karman::lbm (it holds " + compiled_list() +
                      "); reconfigure with -DKARMAN_LATTICES, -DKARMAN_PRECISIONS and -DKARMAN_LAYOUTS naming it");
        }
      });
    });
  });
}

}  // namespace karman::lbm
