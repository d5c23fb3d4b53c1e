#pragma once
/// \file solver.hpp
/// The dense LBM solver of one compiled variant on one rank's slab: SolverCore's lattices,
/// flags and time step (solver_core.hpp) with the stream-collide kernels of one collision,
/// pattern and force. Bulk and boundary voxels run separate kernels (update_schedule.hpp).

#include <karman/lbm/collision.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/solver_core.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <memory>

namespace karman::lbm {

/// One compiled variant: lattice L, precision Prec (precision.hpp: float, double, FP16S,
/// FP16C), collision, pattern P. `Forced` compiles the Guo force terms in; a case without a
/// body force runs without them.
template <class L, class Prec, class Layout, class Collision, Pattern P, bool Forced,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Solver final : public SolverCore<L, Prec, Layout, MemorySpace> {
  static_assert(Collision::template defined_for<L>,
                "karman::lbm::Solver: the collision is not defined for the lattice");
  using Core = SolverCore<L, Prec, Layout, MemorySpace>;
  using typename Core::T;
  /// Kernel features of the voxels with no boundary in their stencil, and of all others.
  using BulkFeatures = Features<false, Forced>;
  using BoundaryFeatures = Features<true, Forced>;

 public:
  using typename Core::exchanger_type;
  using typename Core::execution_space;
  using typename Core::field_type;

  /// Allocates the lattices and flags of `setup` on the slab `partition` and sets the initial
  /// equilibrium. `exchanger` moves halos (null when the slab axis is neither periodic nor
  /// decomposed); the partition is the one its decomposition built.
  Solver(const SolverSetup& setup, const SlabPartition& partition, std::unique_ptr<exchanger_type> exchanger)
      : Core(setup, partition, std::move(exchanger), P, Forced, Collision::name),
        m_rates(collision_rates<Collision, T>(setup.relaxation)) {}

 private:
  template <StepKind K, class Feat>
  StreamCollide<L, Prec, Layout, MemorySpace, Collision, K, Feat> kernel() const {
    StreamCollide<L, Prec, Layout, MemorySpace, Collision, K, Feat> k{this->template access<K, Feat>(), m_rates, {}};
    for (int d = 0; d < 3; ++d) k.force[d] = this->m_force[d];
    return k;
  }

  template <StepKind K>
  void launch(const KernelLabels& label, const VoxelRange& range, const execution_space& space) const {
    this->schedule().template run<StreamCollideLaunchFor<Prec, K>>(label, range, space, kernel<K, BulkFeatures>(),
                                                                   kernel<K, BoundaryFeatures>());
  }

  /// Only the step kinds of pattern P are compiled: AB pulls, AA alternates odd and even.
  void update(StepKind k, const KernelLabels& label, const VoxelRange& range,
              const execution_space& space) const override {
    if constexpr (P == Pattern::ab) {
      launch<StepKind::ab_pull>(label, range, space);
    } else if (k == StepKind::aa_odd) {
      launch<StepKind::aa_odd>(label, range, space);
    } else {
      launch<StepKind::aa_even>(label, range, space);
    }
  }

  CollisionRates<T> m_rates;
};

}  // namespace karman::lbm
