#pragma once
/// \file solver_core.hpp
/// The dense LBM solver's state and host-side logic on one rank's slab or Cartesian block
/// (dense_partition.hpp), shared by every collision, pattern and force variant of one
/// (lattice, precision, layout, partition kind): population
/// lattices, flags, walls, the time step with optional interior/shared overlap around the halo
/// exchange (Meneghin & Mahmoud Fig. 4b; Karrer's MPI recipe), moments and checkpoints.
/// Solver (solver.hpp) adds the stream-collide kernels of one variant. Keeping this code out
/// of the variant halves what a solver unit compiles: it was instantiated for every
/// (collision, pattern, force) of the unit.

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/instance_order.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/lbm/dense_partition.hpp>
#include <karman/lbm/dense_setup.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/halo_plans.hpp>
#include <karman/lbm/moments_kernel.hpp>
#include <karman/lbm/owned_box_copies.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/solver_state.hpp>
#include <karman/lbm/update_schedule.hpp>
#include <karman/lbm/variants.hpp>
#include <karman/lbm/velocity_set.hpp>
#include <karman/lbm/wall_slots.hpp>

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace karman::lbm {

/// The population field of a dense solver on `Partition` (dense_partition.hpp).
template <class L, class Prec, class Layout, class MemorySpace, class Partition>
using DenseField =
    Field<storage_t<Prec>, typename DensePartition<Partition>::template field_layout<Layout, L::D>, MemorySpace>;

/// Everything of a dense solver that does not depend on its collision, pattern or force
/// (which are runtime values here): one instantiation per (lattice, precision, layout,
/// partition kind) serves every variant a unit compiles. Solver derives from it and supplies
/// update(), the launch of its stream-collide kernels. `Partition` is SlabPartition or
/// CartesianPartition (dense_partition.hpp). What every grid keeps (lattices, flags, step count,
/// checkpoints, moments in box order) is SolverState's; this class adds the dense grid's walls,
/// forces, update schedule and overlapped step.
template <class L, class Prec, class Layout, class MemorySpace, class Partition = SlabPartition>
class SolverCore
    : public SolverState<L, Prec, Layout, DenseField<L, Prec, Layout, MemorySpace, Partition>,
                         DenseOwnedPosition<MemorySpace>, SolverCore<L, Prec, Layout, MemorySpace, Partition>> {
  using Base = SolverState<L, Prec, Layout, DenseField<L, Prec, Layout, MemorySpace, Partition>,
                           DenseOwnedPosition<MemorySpace>, SolverCore>;
  friend Base;

 protected:
  using typename Base::storage_type;
  using typename Base::T;
  /// What the partition kind changes: accessor, field layout, owned box (dense_partition.hpp).
  using partition_traits = DensePartition<Partition>;
  /// The neighbour accessor the kernels are instantiated with.
  using neighbours_type = typename partition_traits::template neighbours<L::D>;
  /// The layout of the population fields (Disaggregated over a block's groups on a block).
  using field_layout = typename partition_traits::template field_layout<Layout, L::D>;
  using Base::m_boundaries;
  using Base::m_exchanger;
  using Base::m_f;
  using Base::m_flags;
  using Base::m_fluid_voxels;
  using Base::m_force;
  using Base::m_overlap;
  using Base::m_owned;
  using Base::m_owned_position;
  using Base::m_pattern;
  using Base::m_plans;
  using Base::next_step;

 public:
  using typename Base::exchanger_type;
  using typename Base::execution_space;
  using typename Base::field_type;

  std::array<double, 3> body_force() override {
    std::array<double, 3> force{0, 0, 0};
    if (m_links.extent(0) == 0) return force;
    fill_wall_links();
    for (int d = 0; d < L::D; ++d) {
      Kokkos::parallel_reduce("karman::momentum_exchange", Kokkos::RangePolicy<execution_space>(0, m_links.extent(0)),
                              MomentumExchange<L, Prec, field_type, MemorySpace>{m_f[0], m_links, d}, force[d]);
    }
    return force;
  }

  std::size_t wall_links() const override { return m_links.extent(0); }

  OwnedBox owned_box() const override { return partition_traits::owned_box(m_part); }
  /// This rank's slab or block.
  const Partition& partition() const { return m_part; }
  /// Which voxels run the bulk and which the boundary kernel.
  const UpdateSchedule<MemorySpace>& schedule() const { return m_schedule; }

 protected:
  /// Allocates the lattices and flags of `setup` on the slab or block `partition` (of
  /// setup.global) and sets the initial equilibrium. `exchanger` moves halos (null when a slab
  /// axis is neither periodic nor decomposed); `forced` says whether the kernels add the Guo
  /// force terms; `collision` names the collision for description().
  SolverCore(const SolverSetup& setup, const Partition& partition, std::unique_ptr<exchanger_type> exchanger,
             Pattern pattern, bool forced, const char* collision)
      : Base(setup, pattern, forced, collision, std::move(exchanger)),
        m_part(checked_partition(setup, partition)),
        m_topology(partition_traits::topology(m_part)),
        m_spaces(compat::make_concurrent_instances<execution_space>(1 + shared_instances)) {
    this->m_rank = m_part.rank();
    m_owned = m_part.owned();
    if (m_exchanger) {
      for (const StepKind k : {StepKind::ab_pull, StepKind::aa_odd, StepKind::aa_even})
        m_plans[int(k)] = HaloPlans<L>::of(k, m_part);
    }
    m_owned_position.first = m_part.owned().begin;
    const std::vector<index_t> order = owned_box_order(m_part);
    if (!order.empty()) {
      const Kokkos::View<index_t*, MemorySpace> table("karman::owned_box_order", order.size());
      Kokkos::deep_copy(table, Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                   order.data(), order.size()));
      m_owned_position.order = table;
    }
    m_f[0] = field_type("karman::populations_a", m_part.groups(), L::Q);
    if (m_pattern == Pattern::ab) m_f[1] = field_type("karman::populations_b", m_part.groups(), L::Q);
    // A box with no geometry is all fluid: flag words of zero, every voxel bulk.
    m_flags = Kokkos::View<flag_t*, MemorySpace>("karman::flags", std::size_t(m_part.local_size()));
    m_fluid_voxels = m_part.owned().size();
    if (setup.geometry || !periodic_box(setup)) {
      const auto host = build_flags(m_part, setup, velocity_set<L>());
      m_fluid_voxels = 0;
      for (index_t v = m_part.owned().begin; v < m_part.owned().end; ++v)
        m_fluid_voxels += flags::kind(host[std::size_t(v)]) != CellKind::solid;
      this->upload_flags(host);
      const int tile =
          setup.schedule_tile > 0
              ? setup.schedule_tile
              : default_schedule_tile(int(sizeof(storage_type)), BackendTraits<execution_space>::schedule_tile_bytes);
      m_schedule = UpdateSchedule<MemorySpace>(host, m_part.owned(), tile, setup.schedule,
                                               m_pattern == Pattern::ab && fills_partial_sectors<field_layout>);
      const auto slots = build_wall_slots(m_part, setup, velocity_set<L>());
      m_wall_slots = Kokkos::View<WallSlot*, MemorySpace>("karman::wall_slots", slots.size());
      Kokkos::deep_copy(m_wall_slots,
                        Kokkos::View<const WallSlot*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            slots.data(), slots.size()));
    }
    if (setup.curved_wall.id >= 0) set_wall_links(setup);
    if (setup.force_field || !setup.immersed_body.empty()) set_force_field(setup);
    std::vector<double> rho, u;
    build_initial_state(m_part, setup, rho, u);
    this->initialize(rho, u, m_spaces[0]);
  }

  /// Sets the per-voxel force field for the step about to run (immersed boundaries); the field
  /// of a case that gives one stays as set up.
  virtual void update_forces() {}

  /// Whether update_forces() reads the populations of halo voxels (immersed boundaries, whose
  /// interpolation pulls at owned voxels next to them): then every step exchanges its halos
  /// before the forces are set, and its kernels do not overlap the exchange.
  virtual bool forces_read_halos() const { return false; }

  /// Fills what the next step reads from walls (fill_walls) and halos, for work between steps
  /// that reads the populations as that step will (immersed boundaries). Collective.
  void prepare_next_step() {
    const StepKind k = next_step();
    fill_walls(k);
    exchange_halos(k);
  }

  /// Runs the variant's bulk kernel of step kind k over `range` on `space` and its boundary kernel
  /// on `boundary_space`, asynchronously (Solver::update, UpdateSchedule::run); the caller orders
  /// the two instances.
  virtual void update(StepKind k, const KernelLabels& label, const VoxelRange& range, const execution_space& space,
                      const execution_space& boundary_space) const = 0;

  /// Accessor of the populations as a step of kind K reads and writes them.
  template <StepKind K, class Feat>
  PopulationAccess<L, Prec, field_layout, MemorySpace, K, Feat, neighbours_type> access() const {
    PopulationAccess<L, Prec, field_layout, MemorySpace, K, Feat, neighbours_type> a{
        m_f[0], m_pattern == Pattern::ab ? m_f[1] : m_f[0], m_flags, m_boundaries, m_topology};
    const std::array<int, 3> origin = m_part.origin();
    for (int d = 0; d < 3; ++d) a.origin[d] = origin[std::size_t(d)];
    return a;
  }

  /// Body force of each local voxel (voxel, axis) when the kernels read it per voxel; empty
  /// otherwise.
  Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace> m_force_field;

 private:
  /// Allocates the per-voxel force field and fills it with the setup's field, or its uniform
  /// force. The field is read by the AB pattern's kernels only (solver_dispatch.hpp).
  void set_force_field(const SolverSetup& setup) {
    if (m_pattern == Pattern::aa) {
      throw Error(std::string("karman: a per-voxel force field (") +
                  (setup.force_field ? "force_field" : "immersed boundaries") +
                  ") runs with --pattern ab only; got --pattern aa");
    }
    const index_t n = m_part.local_size();
    m_force_field = Kokkos::View<T**, Kokkos::LayoutLeft, MemorySpace>("karman::force_field", std::size_t(n), L::D);
    auto host = Kokkos::create_mirror_view(m_force_field);
    const std::array<int, 3> origin = m_part.origin();
    for (index_t v = 0; v < n; ++v) {
      std::array<int, 3> c = m_part.coordinates(v);
      for (std::size_t a = 0; a < 3; ++a) c[a] += origin[a];
      const std::array<double, 3> f =
          setup.force_field
              ? setup.force_field(c[0], c[1], c[2])
              : std::array<double, 3>{setup.relaxation.force[0], setup.relaxation.force[1], setup.relaxation.force[2]};
      for (int d = 0; d < L::D; ++d) host(std::size_t(v), d) = T(f[std::size_t(d)]);
    }
    Kokkos::deep_copy(m_force_field, host);
  }

  /// `partition`, when it is a part of the setup's box.
  static const Partition& checked_partition(const SolverSetup& setup, const Partition& partition) {
    if (!(partition.global() == setup.global)) {
      throw Error("karman::lbm: the partition is of a " + std::to_string(partition.global().nx) + "x" +
                  std::to_string(partition.global().ny) + "x" + std::to_string(partition.global().nz) +
                  " box, the setup's box is " + std::to_string(setup.global.nx) + "x" +
                  std::to_string(setup.global.ny) + "x" + std::to_string(setup.global.nz));
    }
    return partition;
  }

  static bool periodic_box(const SolverSetup& setup) {
    return setup.periodic[0] && setup.periodic[1] && setup.periodic[2];
  }

  /// One step of kind k (SolverState::advance): the walls filled, the forces set, the halos
  /// exchanged, then the kernels; overlapped with the exchange when the forces do not read the
  /// halos (overlapped_step(), which fills the walls itself on its interior instance).
  void run_step(StepKind k, bool follows_step) {
    const bool exchange_first = forces_read_halos();
    if (m_exchanger && m_overlap && !exchange_first) {
      overlapped_step(k, follows_step);
      return;
    }
    fill_walls(k);
    if (exchange_first) exchange_halos(k);
    update_forces();
    step(k, exchange_first);
  }

  /// What moments read as the next step would: walls, halos and forces (SolverState::moments).
  void prepare_step_reads(StepKind k) {
    fill_walls(k);
    exchange_halos(k);
    update_forces();
  }

  /// Uploads the cut links of the setup's curved body. The links are filled at the start of a
  /// step from voxels next to x_f, which must be up to date without a halo exchange: one rank,
  /// closed along the slab axis. AA is refused: its odd step pushes into solid slots.
  void set_wall_links(const SolverSetup& setup) {
    const std::string what =
        std::string("curved walls (") + wall_interpolation_name(setup.curved_wall.interpolation) + ")";
    if (m_pattern == Pattern::aa) throw Error("karman: " + what + " run with --pattern ab only; got --pattern aa");
    if constexpr (!std::is_same_v<Partition, SlabPartition>) {
      throw Error("karman: " + what + " run on slabs only; got the Cartesian process grid --ranks-per-axis " +
                  std::to_string(m_part.dims()[0]) + "x" + std::to_string(m_part.dims()[1]) + "x" +
                  std::to_string(m_part.dims()[2]) + " (leave --ranks-per-axis out)");
    } else {
      if (m_exchanger) {
        throw Error("karman: " + what + " run on one rank with a closed slab axis only; got " +
                    std::to_string(m_part.ranks()) + " rank(s)" +
                    (setup.periodic[m_part.axis()] ? " and a periodic slab axis" : ""));
      }
      const auto host = build_wall_links(m_part, setup, velocity_set<L>());
      m_links = Kokkos::View<WallLink*, MemorySpace>("karman::wall_links", host.size());
      Kokkos::deep_copy(m_links,
                        Kokkos::View<const WallLink*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            host.data(), host.size()));
    }
  }

  /// What a step of kind k reads from walls, filled on `space` before it (and before moments).
  void fill_walls(StepKind k, const execution_space& space = execution_space()) const {
    if (k == StepKind::ab_pull) {
      fill_wall_links(space);
    } else if (k == StepKind::aa_odd) {
      fill_wall_slots<StepKind::aa_odd>(space);
    } else {
      fill_wall_slots<StepKind::aa_even>(space);
    }
  }

  /// Reflected populations of the cut links and bounced populations of the wall slots into the
  /// lattice the next AB step reads (curved_wall.hpp, wall_slots.hpp); idempotent, so moments
  /// and forces may call it between steps.
  void fill_wall_links(const execution_space& space = execution_space()) const {
    fill_wall_slots<StepKind::ab_pull>(space);
    if (m_links.extent(0) == 0) return;
    Kokkos::parallel_for("karman::fill_wall_links", Kokkos::RangePolicy<execution_space>(space, 0, m_links.extent(0)),
                         FillWallLinks<L, Prec, field_type, MemorySpace>{m_f[0], m_links});
  }

  /// Bounced populations of walls at rest where a step of kind K reads them (wall_slots.hpp);
  /// idempotent.
  template <StepKind K>
  void fill_wall_slots(const execution_space& space) const {
    if (m_wall_slots.extent(0) == 0) return;
    Kokkos::parallel_for("karman::fill_wall_slots",
                         Kokkos::RangePolicy<execution_space>(space, 0, m_wall_slots.extent(0)),
                         FillWallSlots<L, K, field_type, MemorySpace>{m_f[0], m_wall_slots});
  }

  /// The halos a step of kind k reads, exchanged before it returns (no overlap).
  void exchange_halos(StepKind k) {
    if (!m_exchanger) return;
    m_exchanger->start(m_f[0], m_plans[int(k)]);
    m_exchanger->finish();
  }

  /// One step of kind k, walls filled: exchange (unless `halos_exchanged`), then the kernels over owned voxels, on the
  /// default instance, where the local periodic exchanger also copies: the copies, the kernels and the next step's
  /// copies are ordered by the instance alone, so a step needs no host synchronisation. An MPI exchanger works on an
  /// instance of its own (solver_dispatch.hpp): its start() waits for that instance and the default one, after whose
  /// kernels the values to send are complete, and its finish() for its copies. With overlap, overlapped_step() instead.
  void step(StepKind k, bool halos_exchanged = false) {
    if (!halos_exchanged && m_exchanger) {
      Kokkos::Profiling::pushRegion("karman::halo_start");
      m_exchanger->start(m_f[0], m_plans[int(k)]);
      Kokkos::Profiling::popRegion();
      Kokkos::Profiling::pushRegion("karman::halo_finish");
      m_exchanger->finish();
      Kokkos::Profiling::popRegion();
    }
    const execution_space in_order;
    if (launches_return_at_once && schedule().boundary_kernel_apart()) {
      // The boundary kernel beside the bulk kernel (UpdateSchedule::run), on the second
      // instance, between two events: after the wall fill and the exchange, before whatever the
      // default instance runs next.
      order_after(m_spaces[1], in_order);
      update(k, m_owned_label, m_part.owned(), in_order, m_spaces[1]);
      order_after(in_order, m_spaces[1]);
    } else {
      update(k, m_owned_label, m_part.owned(), in_order, in_order);
    }
  }

  /// A device kernel's launch returns before the kernel ends; a host backend's returns after it.
  static constexpr bool launches_return_at_once =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename execution_space::memory_space>::accessible;

  /// The walls filled and the interior voxels, which read no halo, updated on their own instance while the messages fly
  /// (Meneghin & Mahmoud Fig. 4b), then the shared voxels: two consecutive ranges on either side of the interior, a
  /// slab's two shared planes or a block's lower and upper shared cells (up to 13 each, cartesian_partition.hpp), two
  /// launches whatever the neighbour count. On a device the interior kernel is queued first, so that the exchanger's
  /// packing and staging copies (its own instance, another stream) and the messages run beside it, not before it; on a
  /// host backend a launch runs the kernel to its end, so the messages are posted first. Either order computes the
  /// same: the interior kernel and the exchange touch different slots (an AB step reads one lattice and writes the
  /// other; an AA step's slots are each read and written by one voxel, and the messages carry those of halo and shared
  /// voxels).
  ///
  /// On a device the interior's boundary kernel runs on the shared kernels' instance, beside the interior's bulk kernel
  /// (UpdateSchedule::run) and before the shared kernels, which wait for the exchange anyway. The shared kernels (a
  /// bulk and a boundary kernel for each of the two ranges) then run side by side on four instances (m_spaces[1..4]):
  /// they are small, come after the exchange, when the interior kernel is ending, and one after the other they were the
  /// tail of every step (four launches of 2-10 us each on a 2x2x1 block, 4 x H200, session 28).
  ///
  /// The instances are ordered among themselves, not by the host (instance_order.hpp). The wall fill and the interior
  /// kernel share an instance, so the GPU goes from the one to the other with no event between streams on the path of
  /// every step; that instance waits for the last step's shared kernels and, on the first step of a run of steps
  /// (`follows_overlapped_step` false), for the default instance's work. The exchange (ordered after the default
  /// instance) and the shared kernels come after the fill, whose slots they may read (an AA even step fills slots of
  /// fluid voxels, shared ones too), the shared kernels also after the exchanger's copies (fenced in finish()), and
  /// the default instance after both kernels, so that whatever reads the populations next on it (the next exchange,
  /// moments, a fence) comes after this step. The host waits only where MPI needs it (the exchanger's start() waits
  /// for the values to send), so a GPU runs one step's kernels right after the last one's.
  void overlapped_step(StepKind k, bool follows_overlapped_step) {
    const execution_space in_order;
    const VoxelRange owned = m_part.owned(), interior = m_part.group(m_part.interior_group());
    // Between two steps of advance() nothing is queued on the default instance. The last step's shared kernels are
    // waited for on each of their instances: an event each, not a chain of them through one instance.
    if (follows_overlapped_step) {
      for (std::size_t i = 1; i < m_spaces.size(); ++i) order_after(m_spaces[0], m_spaces[i]);
    } else {
      order_after(m_spaces[0], in_order);
    }
    fill_walls(k, m_spaces[0]);
    order_after(in_order, m_spaces[0]);
    order_after(m_spaces[1], m_spaces[0]);
    if constexpr (launches_return_at_once) update(k, m_interior_label, interior, m_spaces[0], m_spaces[1]);
    Kokkos::Profiling::pushRegion("karman::halo_start");
    m_exchanger->start(m_f[0], m_plans[int(k)]);
    Kokkos::Profiling::popRegion();
    if constexpr (!launches_return_at_once) update(k, m_interior_label, interior, m_spaces[0], m_spaces[0]);
    // The shared kernels' other instances (devices only) start where the second stands, after the fill: ordered while
    // the host waits for the messages anyway, not before the exchange starts.
    for (std::size_t i = 2; i < m_spaces.size(); ++i) order_after(m_spaces[i], m_spaces[1]);
    Kokkos::Profiling::pushRegion("karman::halo_finish");
    m_exchanger->finish();
    Kokkos::Profiling::popRegion();
    update(k, m_shared_lo_label, {owned.begin, interior.begin}, shared_space(0), shared_space(1));
    update(k, m_shared_hi_label, {interior.end, owned.end}, shared_space(2), shared_space(3));
    for (const execution_space& space : m_spaces) order_after(in_order, space);
  }

  /// Instances of the overlapped step's four shared kernels (lower range bulk and boundary, upper range bulk and
  /// boundary): side by side on a device, one instance on a host backend, whose launches run to their end anyway.
  static constexpr std::size_t shared_instances = launches_return_at_once ? 4 : 1;
  const execution_space& shared_space(std::size_t kernel) const { return m_spaces[1 + kernel % shared_instances]; }

  /// The kernel features SolverState's moments fold may ask for: a per-voxel force field too.
  static constexpr bool has_force_field = true;
  bool force_field_set() const { return m_force_field.extent(0) > 0; }
  /// A slab's owned voxels, and a 1×1×N block's, lie in box order (no order table).
  bool owned_in_box_order() const { return m_owned_position.order.extent(0) == 0; }

  /// The Moments kernel of a step of kind K over the owned voxels (SolverState::moments).
  template <StepKind K, class Feat>
  void launch_moments(MomentFields& out) const {
    Moments<L, Prec, field_layout, MemorySpace, K, Feat, neighbours_type> kernel{access<K, Feat>(),    out.rho, out.u,
                                                                                 m_part.owned().begin, {},      {}};
    for (int d = 0; d < 3; ++d) kernel.force[d] = m_force[d];
    if constexpr (Feat::force_field) kernel.voxel_force.field = m_force_field;
    // On the default instance, after the exchanger's copies (see step()).
    const execution_space in_order;
    for_each("karman::moments", m_part.owned(), in_order, kernel);
    compat::fence(in_order, "karman::moments_done");
  }

  Partition m_part;
  typename neighbours_type::topology_type m_topology;  ///< what the kernels' neighbour accessor reads
  /// [0] the interior (wall fill, bulk kernel), [1 .. shared_instances] the interior's boundary kernel and the shared
  /// kernels (overlapped_step()).
  std::vector<execution_space> m_spaces;
  Kokkos::View<WallLink*, MemorySpace> m_links;       ///< cut links of a curved body (curved_wall.hpp)
  Kokkos::View<WallSlot*, MemorySpace> m_wall_slots;  ///< bounce-back through solid slots (wall_slots.hpp)
  UpdateSchedule<MemorySpace> m_schedule;
  const KernelLabels m_owned_label{"karman::stream_collide"};
  const KernelLabels m_interior_label{"karman::stream_collide_interior"};
  const KernelLabels m_shared_lo_label{"karman::stream_collide_shared_lo"};
  const KernelLabels m_shared_hi_label{"karman::stream_collide_shared_hi"};
};

}  // namespace karman::lbm
