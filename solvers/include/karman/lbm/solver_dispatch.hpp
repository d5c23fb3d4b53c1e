#pragma once
/// \file solver_dispatch.hpp
/// Turns the runtime names of a Variant into template arguments, once per solver, for one
/// (lattice, precision, layout); included only by the generated solver-variant units.

#include <karman/core/layouts.hpp>
#include <karman/core/periodic_exchange.hpp>
#include <karman/lbm/solver.hpp>
#include <karman/lbm/solver_variant.hpp>
#include <karman/lbm/variants.hpp>
#if KARMAN_ENABLE_MPI
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/slab_decomposition.hpp>
#endif

namespace karman::lbm::detail {

/// The halo exchanger a slab needs: MPI between ranks, a local copy when one rank is periodic
/// along the slab axis, none when the slab axis is closed and undivided.
template <class FieldType>
std::unique_ptr<HaloExchanger<FieldType>> make_exchanger(const SolverSetup& setup) {
  const int slab_axis = setup.global.slab_axis();
#if KARMAN_ENABLE_MPI
  if (setup.ranks > 1) {
    if (setup.communicator == MPI_COMM_NULL) {
      throw Error("karman: " + std::to_string(setup.ranks) + " ranks need a communicator");
    }
    const comm::SlabDecomposition decomposition(
        setup.global, setup.communicator, setup.periodic[slab_axis] ? comm::SlabEnds::periodic : comm::SlabEnds::wall);
    return std::make_unique<comm::MpiHaloExchanger<FieldType>>(decomposition, setup.gpu_aware,
                                                               typename FieldType::execution_space(), setup.pack_halos);
  }
#else
  if (setup.ranks > 1) {
    throw Error("karman: " + std::to_string(setup.ranks) + " ranks need a build with MPI (KARMAN_ENABLE_MPI=ON)");
  }
#endif
  if (setup.periodic[slab_axis]) return std::make_unique<PeriodicSelfExchanger<FieldType>>();
  return nullptr;
}

template <class L, class T, class Layout, class Collision, Pattern P, bool Forced>
std::unique_ptr<FlowSolver> build(const SolverSetup& setup) {
  using S = Solver<L, T, Layout, Collision, P, Forced>;
  return std::make_unique<S>(setup, make_exchanger<typename S::field_type>(setup));
}

/// The Guo force terms are compiled in only for a case with a body force.
template <class L, class T, class Layout, class Collision, Pattern P>
std::unique_ptr<FlowSolver> with_features(const SolverSetup& setup) {
  const bool forced =
      setup.relaxation.force[0] != 0 || setup.relaxation.force[1] != 0 || setup.relaxation.force[2] != 0;
  if (forced) return build<L, T, Layout, Collision, P, true>(setup);
  return build<L, T, Layout, Collision, P, false>(setup);
}

/// Definition of the entry point declared in solver_variant.hpp; each generated translation
/// unit instantiates it for one (lattice, precision, layout), with every collision of
/// variants.hpp defined for the lattice (the others are not compiled) and every pattern.
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_solver_variant(const SolverSetup& setup) {
  return dispatch<Collisions>(setup.variant.collision, [&](auto collision) -> std::unique_ptr<FlowSolver> {
    using Collision = tag_type<decltype(collision)>;
    if constexpr (Collision::template defined_for<L>) {
      return dispatch<Patterns>(setup.variant.pattern, [&](auto pattern) {
        return with_features<L, T, Layout, Collision, tag_type<decltype(pattern)>::value>(setup);
      });
    } else {
      throw Error(undefined_collision_message(Collision::name, L::name));
    }
  });
}

}  // namespace karman::lbm::detail
