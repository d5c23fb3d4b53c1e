#pragma once
/// \file solver_dispatch.hpp
/// Turns the runtime names of a Variant into template arguments, once per solver, for one
/// (lattice, precision, layout) on slabs or on Cartesian blocks; included only by the
/// generated solver-variant units.

#include <karman/core/layouts.hpp>
#include <karman/lbm/setup_transport.hpp>
#include <karman/lbm/solver.hpp>
#include <karman/lbm/solver_variant.hpp>
#include <karman/lbm/variant_fold.hpp>
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

/// Whether the kernels reading a per-voxel force field are compiled for a collision and
/// pattern: the AB pattern with BGK or TRT, what immersed boundaries need (the cylinder runs
/// TRT), keeping the other variants' compile time unchanged.
template <class Collision, Pattern P>
inline constexpr bool has_force_field_kernels = P == Pattern::ab &&
                                                (std::is_same_v<Collision, BGK> || std::is_same_v<Collision, TRT>);

/// The slab solvers of one (lattice, precision, layout): every collision the lattice defines,
/// the force field's kernels where has_force_field_kernels says (variant_fold.hpp).
template <class L, class T, class Layout>
struct SlabSolverBuilder {
  using result_type = std::unique_ptr<FlowSolver>;
  template <class Collision>
  static constexpr bool compiles = true;
  template <class Collision, Pattern P>
  static constexpr bool force_field_kernels = has_force_field_kernels<Collision, P>;

  template <class Collision, Pattern P, bool Forced, bool ForceField>
  result_type build(const SolverSetup& setup) const {
    using S = Solver<L, T, Layout, Collision, P, Forced, ForceField>;
    using F = typename S::field_type;
    // One rank's local copy runs on the default instance with the kernels (SolverCore::step).
    const auto space = setup.ranks > 1 ? exchange_instance<F>() : typename F::execution_space();
    auto slab = comm::slab_and_exchanger<F>(setup.global, setup.periodic[std::size_t(setup.global.slab_axis())],
                                            transport_of(setup), space);
    return std::make_unique<S>(setup, slab.partition, std::move(slab.exchanger));
  }
  std::string force_field_refusal(const SolverSetup& setup) const {
    return "karman: a per-voxel force field (" + force_field_source(setup) +
           ") runs with --pattern ab and --collision bgk or trt; got --pattern " + setup.variant.pattern.name() +
           " --collision " + setup.variant.collision.name();
  }
};

/// Definition of the per-collision entry point declared in solver_variant.hpp: every pattern,
/// with and without the force terms.
template <class L, class T, class Layout, class Collision>
std::unique_ptr<FlowSolver> make_collision_variant(const SolverSetup& setup) {
  static_assert(Collision::template defined_for<L>, "make_collision_variant: the collision is not defined for L");
  return fold_pattern_and_forces<Collision>(setup, SlabSolverBuilder<L, T, Layout>{});
}

/// Definition of the entry point declared in solver_variant.hpp; each generated translation
/// unit instantiates it for one (lattice, precision, layout). It only chooses the collision:
/// every collision of variants.hpp defined for the lattice has its make_collision_variant
/// instantiated (the others are refused), in this unit or in one of its own.
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_solver_variant(const SolverSetup& setup) {
  return fold_collision<L>(setup, SlabSolverBuilder<L, T, Layout>{}, [&](auto collision) {
    return make_collision_variant<L, T, Layout, tag_type<decltype(collision)>>(setup);
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

/// The Cartesian-block solvers of one (lattice, precision, layout): BGK and TRT, both patterns,
/// no force field, half the kernels of a slab unit, which also holds MRT or CM and the
/// force-field kernels (docs/building.md).
template <class L, class T, class Layout>
struct BlockSolverBuilder {
  using result_type = std::unique_ptr<FlowSolver>;
  template <class Collision>
  static constexpr bool compiles = std::is_same_v<Collision, BGK> || std::is_same_v<Collision, TRT>;
  template <class Collision, Pattern P>
  static constexpr bool force_field_kernels = false;

  template <class Collision, Pattern P, bool Forced, bool ForceField>
  result_type build(const SolverSetup& setup) const {
    static_assert(!ForceField);
    using S = Solver<L, T, Layout, Collision, P, Forced, false, Kokkos::DefaultExecutionSpace::memory_space,
                     CartesianPartition>;
    auto block = make_block<typename S::field_type>(setup);
    return std::make_unique<S>(setup, block.partition, std::move(block.exchanger));
  }
  std::string collision_refusal(const SolverSetup& setup) const {
    return "karman: --collision " + setup.variant.collision.name() +
           " is not compiled for Cartesian blocks (--ranks-per-axis); they run bgk and trt, or leave "
           "--ranks-per-axis out for slabs";
  }
  std::string force_field_refusal(const SolverSetup& setup) const {
    return "karman: a per-voxel force field (" + force_field_source(setup) +
           ") runs on slabs only; got the Cartesian process grid --ranks-per-axis " +
           std::to_string(setup.process_grid[0]) + "x" + std::to_string(setup.process_grid[1]) + "x" +
           std::to_string(setup.process_grid[2]) + " (leave --ranks-per-axis out)";
  }
};

/// Definition of the block entry point declared in solver_variant.hpp; each generated block
/// unit instantiates it for one (lattice, precision, layout).
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_block_solver_variant(const SolverSetup& setup) {
  const BlockSolverBuilder<L, T, Layout> builder;
  return fold_collision<L>(setup, builder, [&](auto collision) {
    return fold_pattern_and_forces<tag_type<decltype(collision)>>(setup, builder);
  });
}

}  // namespace karman::lbm::detail
