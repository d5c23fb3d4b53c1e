#pragma once
/// \file solver_state.hpp
/// What a solver core keeps and does whatever its grid (a slab, a Cartesian block, the
/// block-sparse grid's block planes): the population lattices and flags, the pattern and step
/// count, the halo exchanger and its plans, and the FlowSolver face built on them: the time loop,
/// moments, checkpoints and flags in owned-box order (owned_box_copies.hpp), sizes and the
/// description. The grid's core (SolverCore in solver_core.hpp, SparseSolverCore in
/// sparse_solver.hpp) derives from it and supplies what the grid changes: how a step runs (walls,
/// exchange, overlap), the moments kernel's launch and where the owned voxels lie in the box.

#include <karman/core/error.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/owned_box_copies.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/precision.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/variants.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace karman::lbm {

/// Fills a population lattice of precision P with the equilibrium of (rho, u), in slot i (AB)
/// or in slot opposite(i) (AA, as after an even step), so the first step reads it as
/// post-collision.
template <class L, class P, class FieldType, class MemorySpace>
struct InitializeEquilibrium {
  FieldType f;
  Kokkos::View<const double*, MemorySpace> rho;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace> u;
  bool opposite_slots = false;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    using T = compute_t<P>;
    const T uv[3] = {T(u(v, 0)), T(u(v, 1)), T(u(v, 2))};
    for (int i = 0; i < L::Q; ++i) {
      const int slot = opposite_slots ? L::opposite(i) : i;
      f(v, slot) = encode_population<L, P>(equilibrium<L>(i, T(rho(v)), uv), slot);
    }
  }
};

/// The grid-independent part of a solver core of lattice L, precision Prec and (registry) layout
/// Layout, its populations stored as FieldType (the layout as the grid maps it). `Position` maps
/// a stored owned voxel to its place in owned_box() (DenseOwnedPosition, OwnedBoxPosition).
/// `Core` is the grid's core deriving from it, which provides (as members this class, its
/// friend, calls):
/// - `void run_step(StepKind k, bool follows_step)`: one step of kind k, walls and halos
///   included; `follows_step` when the last step ran in the same advance() call;
/// - `void prepare_step_reads(StepKind k)`: fills what a step of kind k reads besides the owned
///   populations (walls, halos, forces), so that moments read what that step would;
/// - `template <StepKind K, class Feat> void launch_moments(MomentFields& out) const`: the
///   Moments kernel over the stored owned voxels, `out` indexed by voxel - owned().begin;
/// - `bool owned_in_box_order() const`: true when that order already is owned_box() order;
/// - `static constexpr bool has_force_field`: whether the kernels may read a per-voxel force.
/// Virtual calls happen once per step or per output, never per voxel.
template <class L, class Prec, class Layout, class FieldType, class Position, class Core>
class SolverState : public FlowSolver {
 protected:
  using MemorySpace = typename FieldType::memory_space;
  /// The arithmetic type of the kernels.
  using T = compute_t<Prec>;
  /// The type of a stored population.
  using storage_type = storage_t<Prec>;

 public:
  using field_type = FieldType;
  using execution_space = typename MemorySpace::execution_space;
  using exchanger_type = HaloExchanger<field_type>;

  void advance(int n) override {
    for (int s = 0; s < n; ++s) {
      core().run_step(next_step(), s > 0);
      if (m_pattern == Pattern::ab) std::swap(m_f[0], m_f[1]);
      ++m_steps;
    }
  }

  std::int64_t steps() const override { return m_steps; }

  /// Collective under MPI: the halos the next step reads are exchanged first.
  MomentFields moments() override {
    const StepKind k = next_step();
    core().prepare_step_reads(k);
    MomentFields out{Kokkos::View<double*>("karman::rho", m_owned.size()),
                     Kokkos::View<double**, Kokkos::LayoutLeft>("karman::u", m_owned.size(), 3)};
    if (k == StepKind::ab_pull) {
      compute_moments<StepKind::ab_pull>(out);
    } else if (k == StepKind::aa_odd) {
      compute_moments<StepKind::aa_odd>(out);
    } else {
      compute_moments<StepKind::aa_even>(out);
    }
    if (core().owned_in_box_order()) return out;
    return moments_in_box_order<execution_space>(out, m_owned.begin, m_owned, m_owned_position, owned_box().size());
  }

  double local_mass() override { return total_density(moments()); }

  std::size_t population_bytes() const override {
    return std::size_t(m_pattern == Pattern::ab ? 2 : 1) * std::size_t(m_f[0].view().extent(0)) * sizeof(storage_type);
  }
  /// The bulk kernel's traffic: populations read and written. The boundary kernels' flag words
  /// (a few per cent of the voxels) are left out.
  std::size_t bytes_per_update() const override { return 2 * L::Q * sizeof(storage_type); }
  int populations() const override { return L::Q; }
  std::string description() const override {
    return std::string(L::name) + "/" + VariantName<Prec>::value + "/" + Layout::name + "/" + m_collision + "/" +
           (m_pattern == Pattern::ab ? PatternTag<Pattern::ab>::name : PatternTag<Pattern::aa>::name) +
           grid_description();
  }
  GridCounts grid_counts() const override { return {m_fluid_voxels, 0, 0}; }

  bool uses_mpi() const override { return m_exchanger && m_exchanger->between_ranks(); }
  RankCommStats comm_stats() const override {
    if (uses_mpi()) return m_exchanger->stats();
    RankCommStats none;
    none.rank = m_rank;
    return none;
  }
  bool gpu_aware() const override { return m_exchanger && m_exchanger->gpu_aware(); }
  void reset_comm_stats() override {
    if (m_exchanger) m_exchanger->reset_counters();
  }

  /// The population lattice the next step reads (for tests and checkpoints).
  const field_type& populations_field() const { return m_f[0]; }

  /// Bytes of a stored population: checkpoints hold the storage words as they are (for FP16
  /// precisions the shifted 16-bit words), so a restart continues bitwise.
  int population_size() const override { return int(sizeof(storage_type)); }

  bool populations_complete() const override { return m_pattern == Pattern::ab || m_steps % 2 == 0; }

  /// The populations of the stored owned voxels in owned_box() order; zeros in box voxels no
  /// stored voxel maps to (the block-sparse grid's unstored blocks, which no step reads).
  void save_populations(std::byte* out) const override {
    if (!populations_complete()) {
      throw Error("karman::lbm: save_populations: AA step count " + std::to_string(m_steps) +
                  " is odd; populations are complete in the owned voxels after an even number of steps");
    }
    save_box_populations<L>(m_f[0], m_owned, m_owned_position, owned_box().size(), m_pattern == Pattern::aa, out);
  }

  void load_populations(const std::byte* in, std::int64_t steps) override {
    if (m_pattern == Pattern::aa && steps % 2 != 0) {
      throw Error("karman::lbm: load_populations: AA step count " + std::to_string(steps) +
                  " is odd; accepted: even counts");
    }
    load_box_populations<L>(m_f[0], m_owned, m_owned_position, owned_box().size(), m_pattern == Pattern::aa, in);
    m_steps = steps;
  }

  /// The flag words of the stored owned voxels in owned_box() order; a wall of id 0 where no
  /// stored voxel maps (as the block-sparse grid marks its inactive voxels).
  void save_flags(flag_t* out) const override {
    save_box_flags(m_flags, m_owned, m_owned_position, owned_box().size(), out);
  }

 protected:
  /// The state of a variant of `setup` before its lattices are allocated: the pattern, whether
  /// the kernels add the Guo force terms (`forced`), the collision's name for description(), and
  /// the exchanger that moves its halos (null when nothing crosses a side of the rank's part).
  SolverState(const SolverSetup& setup, Pattern pattern, bool forced, const char* collision,
              std::unique_ptr<exchanger_type> exchanger)
      : m_exchanger(std::move(exchanger)),
        m_overlap(setup.overlap),
        m_pattern(pattern),
        m_forced(forced),
        m_collision(collision),
        m_boundaries(setup.boundaries) {
    for (int d = 0; d < 3; ++d) m_force[d] = T(setup.relaxation.force[d]);
  }

  /// What description() adds after the pattern for this grid (e.g. "/sparse-memory").
  virtual std::string grid_description() const { return ""; }

  /// The kind of the next step: AB always pulls; AA alternates odd and even steps.
  StepKind next_step() const {
    if (m_pattern == Pattern::ab) return StepKind::ab_pull;
    return m_steps % 2 == 0 ? StepKind::aa_odd : StepKind::aa_even;
  }

  /// Stores the equilibrium of the initial state (host arrays over every stored voxel, halos
  /// included: rho, and u as (voxel, axis)) as post-collision values where the first step reads
  /// them: AB in slot i, AA in slot opposite(i) (as after an even step).
  void initialize(const std::vector<double>& rho_host, const std::vector<double>& u_host,
                  const execution_space& space) {
    const std::size_t n = rho_host.size();
    Kokkos::View<double*, MemorySpace> rho("karman::rho0", n);
    Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> u("karman::u0", n, 3);
    Kokkos::deep_copy(rho, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                               rho_host.data(), n));
    Kokkos::deep_copy(
        u,
        Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            u_host.data(), n, 3));
    for_each("karman::initialize", VoxelRange{0, index_t(n)}, space,
             InitializeEquilibrium<L, Prec, field_type, MemorySpace>{m_f[0], rho, u, m_pattern == Pattern::aa});
    compat::fence(space, "karman::initialized");
  }

  /// Copies host flag words of every stored voxel to the device.
  void upload_flags(const std::vector<flag_t>& host) {
    m_flags = Kokkos::View<flag_t*, MemorySpace>("karman::flags", host.size());
    Kokkos::deep_copy(m_flags, Kokkos::View<const flag_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                   host.data(), host.size()));
  }

  std::unique_ptr<exchanger_type> m_exchanger;
  std::array<HaloPlan, 3> m_plans;  ///< the exchange before a step of each StepKind, built once
  bool m_overlap;                   ///< interior kernels run while the halo messages fly
  Pattern m_pattern;
  bool m_forced;
  std::string m_collision;
  BoundaryTable m_boundaries;
  T m_force[3] = {0, 0, 0};  ///< the uniform body force of the Guo terms
  field_type m_f[2];         ///< [0] what the next step reads; [1] what an AB step writes
  Kokkos::View<flag_t*, MemorySpace> m_flags;
  VoxelRange m_owned;          ///< the stored owned voxels (every one the step updates)
  Position m_owned_position;   ///< where each of them lies in owned_box()
  index_t m_fluid_voxels = 0;  ///< grid_counts()
  int m_rank = 0;              ///< comm_stats() without neighbours between ranks
  std::int64_t m_steps = 0;

 private:
  Core& core() { return static_cast<Core&>(*this); }
  const Core& core() const { return static_cast<const Core&>(*this); }

  /// Moments of the owned voxels as a step of kind K would read them, with the kernel features
  /// of the variant's forces: a per-voxel field (read by AB only), a uniform force, or none.
  template <StepKind K>
  void compute_moments(MomentFields& out) const {
    if constexpr (Core::has_force_field) {
      if (core().force_field_set()) {
        if constexpr (K == StepKind::ab_pull) core().template launch_moments<K, Features<true, true, true>>(out);
        return;
      }
    }
    if (m_forced) {
      core().template launch_moments<K, Features<true, true>>(out);
    } else {
      core().template launch_moments<K, Features<true, false>>(out);
    }
  }
};

}  // namespace karman::lbm
