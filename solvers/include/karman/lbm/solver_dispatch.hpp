#pragma once
/// \file solver_dispatch.hpp
/// Turns the runtime names of a Variant into template arguments, once per solver, for one
/// (lattice, precision, layout) on slabs or on Cartesian blocks; included only by the
/// generated solver-variant units.

#include <karman/core/layouts.hpp>
#include <karman/lbm/setup_transport.hpp>
#include <karman/lbm/solver.hpp>
#include <karman/lbm/solver_variant.hpp>
#include <karman/lbm/variants.hpp>

#include <array>
#include <string>
#include <type_traits>
#include <utility>

namespace karman::lbm::detail {

/// The instance an MPI exchanger packs, stages and unpacks on: its own, at the highest stream
/// priority where the backend has priorities (compat::make_priority_instance), so that its
/// kernels take SMs as the interior kernel's blocks retire (2 x H100, SoA + pack 192^3 D3Q27:
/// 1.21x; docs/performance.md).
template <class FieldType>
typename FieldType::execution_space exchange_instance() {
  return compat::make_priority_instance<typename FieldType::execution_space>();
}

template <class L, class T, class Layout, class Collision, Pattern P, bool Forced, bool ForceField = false>
std::unique_ptr<FlowSolver> build(const SolverSetup& setup) {
  using S = Solver<L, T, Layout, Collision, P, Forced, ForceField>;
  using F = typename S::field_type;
  // One rank's local copy runs on the default instance with the kernels (SolverCore::step).
  const auto space = setup.ranks > 1 ? exchange_instance<F>() : typename F::execution_space();
  auto slab = comm::slab_and_exchanger<F>(setup.global, setup.periodic[std::size_t(setup.global.slab_axis())],
                                          transport_of(setup), space);
  return std::make_unique<S>(setup, slab.partition, std::move(slab.exchanger));
}

/// Whether the kernels reading a per-voxel force field are compiled for a collision and
/// pattern: the AB pattern with BGK or TRT, what immersed boundaries need (the cylinder runs
/// TRT), keeping the other variants' compile time unchanged.
template <class Collision, Pattern P>
inline constexpr bool has_force_field_kernels = P == Pattern::ab &&
                                                (std::is_same_v<Collision, BGK> || std::is_same_v<Collision, TRT>);

/// The Guo force terms are compiled in only for a case with a body force; the per-voxel force
/// field only for a case with one (or an immersed body).
template <class L, class T, class Layout, class Collision, Pattern P>
std::unique_ptr<FlowSolver> with_features(const SolverSetup& setup) {
  if (setup.force_field || !setup.immersed_body.empty()) {
    if constexpr (has_force_field_kernels<Collision, P>) {
      return build<L, T, Layout, Collision, P, true, true>(setup);
    } else {
      throw Error(std::string("karman: a per-voxel force field (") +
                  (setup.force_field ? "force_field" : "immersed boundaries") +
                  ") runs with --pattern ab and --collision bgk or trt; got --pattern " + setup.variant.pattern.name() +
                  " --collision " + setup.variant.collision.name());
    }
  }
  const bool forced =
      setup.relaxation.force[0] != 0 || setup.relaxation.force[1] != 0 || setup.relaxation.force[2] != 0;
  if (forced) return build<L, T, Layout, Collision, P, true>(setup);
  return build<L, T, Layout, Collision, P, false>(setup);
}

/// Definition of the per-collision entry point declared in solver_variant.hpp: every pattern,
/// with and without the force terms.
template <class L, class T, class Layout, class Collision>
std::unique_ptr<FlowSolver> make_collision_variant(const SolverSetup& setup) {
  static_assert(Collision::template defined_for<L>, "make_collision_variant: the collision is not defined for L");
  return dispatch<Patterns>(setup.variant.pattern, [&](auto pattern) {
    return with_features<L, T, Layout, Collision, tag_type<decltype(pattern)>::value>(setup);
  });
}

/// Definition of the entry point declared in solver_variant.hpp; each generated translation
/// unit instantiates it for one (lattice, precision, layout). It only chooses the collision:
/// every collision of variants.hpp defined for the lattice has its make_collision_variant
/// instantiated (the others are refused), in this unit or in one of its own.
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_solver_variant(const SolverSetup& setup) {
  return dispatch<Collisions>(setup.variant.collision, [&](auto collision) -> std::unique_ptr<FlowSolver> {
    using Collision = tag_type<decltype(collision)>;
    if constexpr (Collision::template defined_for<L>) {
      return make_collision_variant<L, T, Layout, Collision>(setup);
    } else {
      throw Error(undefined_collision_message(Collision::name, L::name));
    }
  });
}

/// A rank's block and the exchanger that fills its halos (halo_transport.hpp). The LBM's walls
/// are solid voxels its flags mark, past a closed side too (cell_at, solver_setup.cpp): no
/// population is read across a closed side, so whether the box wraps there is unobservable. An
/// uncut axis other than the slab axis is then passed as periodic, which keeps it without a halo
/// (the kernels wrap it, as on slabs): the topology, the messages and the kernels' speed stay
/// those of a partition that did not know `periodic`.
template <class FieldType>
comm::PartitionAndExchanger<CartesianPartition, FieldType> make_block(const SolverSetup& setup) {
  std::array<bool, 3> periodic = setup.periodic;
  for (int a = 0; a < 3; ++a)
    if (setup.process_grid[std::size_t(a)] == 1 && a != setup.global.slab_axis()) periodic[std::size_t(a)] = true;
  return comm::block_and_exchanger<FieldType>(setup.global, setup.process_grid, periodic, transport_of(setup),
                                              exchange_instance<FieldType>());
}

/// The block solver of one collision and pattern, with or without the Guo force terms.
template <class L, class T, class Layout, class Collision, Pattern P, bool Forced>
std::unique_ptr<FlowSolver> build_on_blocks(const SolverSetup& setup) {
  using S = Solver<L, T, Layout, Collision, P, Forced, false, Kokkos::DefaultExecutionSpace::memory_space,
                   CartesianPartition>;
  auto block = make_block<typename S::field_type>(setup);
  return std::make_unique<S>(setup, block.partition, std::move(block.exchanger));
}

/// Definition of the block entry point declared in solver_variant.hpp; each generated block
/// unit instantiates it for one (lattice, precision, layout), with the collisions
/// block_collisions names (BGK and TRT) and both patterns: half the kernels of a slab unit,
/// which also holds MRT or CM and the force-field kernels (docs/building.md).
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_block_solver_variant(const SolverSetup& setup) {
  if (setup.force_field || !setup.immersed_body.empty()) {
    throw Error(std::string("karman: a per-voxel force field (") +
                (setup.force_field ? "force_field" : "immersed boundaries") +
                ") runs on slabs only; got the Cartesian process grid --ranks-per-axis " +
                std::to_string(setup.process_grid[0]) + "x" + std::to_string(setup.process_grid[1]) + "x" +
                std::to_string(setup.process_grid[2]) + " (leave --ranks-per-axis out)");
  }
  return dispatch<Collisions>(setup.variant.collision, [&](auto collision) -> std::unique_ptr<FlowSolver> {
    using Collision = tag_type<decltype(collision)>;
    if constexpr (std::is_same_v<Collision, BGK> || std::is_same_v<Collision, TRT>) {
      return dispatch<Patterns>(setup.variant.pattern, [&](auto pattern) {
        constexpr Pattern P = tag_type<decltype(pattern)>::value;
        const bool forced =
            setup.relaxation.force[0] != 0 || setup.relaxation.force[1] != 0 || setup.relaxation.force[2] != 0;
        if (forced) return build_on_blocks<L, T, Layout, Collision, P, true>(setup);
        return build_on_blocks<L, T, Layout, Collision, P, false>(setup);
      });
    } else {
      throw Error(std::string("karman: --collision ") + Collision::name +
                  " is not compiled for Cartesian blocks (--ranks-per-axis); they run bgk and trt, or leave "
                  "--ranks-per-axis out for slabs");
    }
  });
}

}  // namespace karman::lbm::detail
