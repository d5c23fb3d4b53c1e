#pragma once
/// \file solver.hpp
/// The dense LBM solver of one compiled variant on one rank's slab or Cartesian block: SolverCore's lattices,
/// flags and time step (solver_core.hpp) with the stream-collide kernels of one collision,
/// pattern and force. Bulk and boundary voxels run separate kernels (update_schedule.hpp).

#include <karman/core/error.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/immersed_boundary.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/solver_core.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <array>
#include <memory>
#include <string>
#include <type_traits>

namespace karman::lbm {

/// One compiled variant: lattice L, precision Prec (precision.hpp: float, double, FP16S,
/// FP16C), collision, pattern P. `Forced` compiles the Guo force terms in; a case without a
/// body force runs without them. `ForceField` reads the force per voxel from a field, which an
/// immersed body (immersed_boundary.hpp) sets before each step. `Partition` is SlabPartition or
/// CartesianPartition: the same kernels run with that partition's neighbour accessor
/// (dense_partition.hpp).
template <class L, class Prec, class Layout, class Collision, Pattern P, bool Forced, bool ForceField = false,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space, class Partition = SlabPartition>
class Solver final : public SolverCore<L, Prec, Layout, MemorySpace, Partition> {
  static_assert(Collision::template defined_for<L>,
                "karman::lbm::Solver: the collision is not defined for the lattice");
  static_assert(!ForceField || P == Pattern::ab, "karman::lbm::Solver: a force field is read by the AB pattern only");
  static_assert(!ForceField || std::is_same_v<Partition, SlabPartition>,
                "karman::lbm::Solver: a force field (immersed boundaries) runs on slabs only");
  using Core = SolverCore<L, Prec, Layout, MemorySpace, Partition>;
  using typename Core::field_layout;
  using typename Core::neighbours_type;
  using typename Core::T;
  /// Kernel features of the voxels with no boundary in their stencil, and of all others.
  using BulkFeatures = Features<false, Forced, ForceField>;
  using BoundaryFeatures = Features<true, Forced, ForceField>;
  /// The immersed boundary of a force-field variant; nothing for the others.
  struct NoImmersedBoundary {};
  using ImmersedBoundaryType =
      std::conditional_t<ForceField, ImmersedBoundary<L, Prec, field_layout, MemorySpace>, NoImmersedBoundary>;

 public:
  using typename Core::exchanger_type;
  using typename Core::execution_space;
  using typename Core::field_type;

  /// Allocates the lattices and flags of `setup` on the slab or block `partition` and sets the
  /// initial equilibrium. `exchanger` moves halos (null when the slab axis is neither periodic
  /// nor decomposed); the partition is the one its decomposition built.
  Solver(const SolverSetup& setup, const Partition& partition, std::unique_ptr<exchanger_type> exchanger)
      : Core(setup, partition, std::move(exchanger), P, Forced, Collision::name),
        m_rates(collision_rates<Collision, T>(setup.relaxation)) {
    if constexpr (ForceField) {
      if (!setup.immersed_body.empty()) {
        const int slab_axis = setup.global.slab_axis();
        m_ib = ImmersedBoundaryType(setup.immersed_body, this->m_force_field, setup.communicator,
                                    setup.global.extent(slab_axis), setup.periodic[std::size_t(slab_axis)]);
      }
    }
  }

  std::size_t immersed_markers() const override {
    if constexpr (ForceField) {
      return m_ib.size();
    } else {
      return 0;
    }
  }

  /// The force on the immersed body, when there is one; else the curved wall's.
  std::array<double, 3> body_force() override {
    if constexpr (ForceField) {
      if (m_ib.size() > 0) {
        // The markers' forces for the next step: apply() again, from the populations as they are.
        this->prepare_next_step();
        update_forces();
        return m_ib.body_force(double(this->steps()));
      }
    }
    return Core::body_force();
  }

 private:
  bool forces_read_halos() const override {
    if constexpr (ForceField) {
      return m_ib.size() > 0;
    } else {
      return false;
    }
  }

  void update_forces() override {
    if constexpr (ForceField) {
      if (m_ib.size() > 0)
        m_ib.apply(this->template access<StepKind::ab_pull, Features<true, true, true>>(), double(this->steps()));
    }
  }

  template <StepKind K, class Feat>
  StreamCollide<L, Prec, field_layout, MemorySpace, Collision, K, Feat, neighbours_type> kernel() const {
    StreamCollide<L, Prec, field_layout, MemorySpace, Collision, K, Feat, neighbours_type> k{
        this->template access<K, Feat>(), m_rates, {}, {}};
    for (int d = 0; d < 3; ++d) k.force[d] = this->m_force[d];
    if constexpr (Feat::force_field) k.voxel_force.field = this->m_force_field;
    return k;
  }

  template <StepKind K>
  void launch(const KernelLabels& label, const VoxelRange& range, const execution_space& space,
              const execution_space& boundary_space) const {
    this->schedule().template run<StreamCollideLaunchFor<Prec, K>>(
        label, range, space, boundary_space, kernel<K, BulkFeatures>(), kernel<K, BoundaryFeatures>());
  }

  /// Only the step kinds of pattern P are compiled: AB pulls, AA alternates odd and even.
  void update(StepKind k, const KernelLabels& label, const VoxelRange& range, const execution_space& space,
              const execution_space& boundary_space) const override {
    if constexpr (P == Pattern::ab) {
      launch<StepKind::ab_pull>(label, range, space, boundary_space);
    } else if (k == StepKind::aa_odd) {
      launch<StepKind::aa_odd>(label, range, space, boundary_space);
    } else {
      launch<StepKind::aa_even>(label, range, space, boundary_space);
    }
  }

  CollisionRates<T> m_rates;
  ImmersedBoundaryType m_ib;
};

}  // namespace karman::lbm
