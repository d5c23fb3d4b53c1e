#pragma once
/// \file refined_step.hpp
/// The time step of a refined grid (refined_grid.hpp): every leaf voxel pulls its populations (the
/// uniform pull from x - c_i, or the coupled pulls of level_coupling.hpp next to a jump) and
/// collides with its level's relaxation (level_relaxation.hpp). The leaf blocks away from a jump,
/// which the level grid keeps as a run of their own (their kind, block_sparse_grid.hpp), run the
/// solver's stream-collide kernel (stream_collide.hpp) as on a block-sparse grid: the boundary
/// blocks among them (at a closed side) with flag words and bounce-back, the others with neither.
/// The leaf blocks at a jump run the same update with the coupled pulls in place of the uniform
/// ones. Level l takes two steps per step of level l + 1 after that level's state is kept and
/// before it steps (Rohde et al. 2006; Neon's recursion, Mahmoud, Salehipour & Meneghin, IPDPS
/// 2024): the finer level's explosion reads the coarse state of the step's start, and the coarse
/// level's coalescence reads the finer states kept before and after the first of its two steps. The
/// coupling moves every population exactly once (docs/multiresolution.md), so mass and momentum are
/// conserved to rounding.
///
/// Two schedules launch this (RefinedSchedule): `disaggregated`, stream and collision fused per
/// voxel with a kernel for each kind of block (seed 000 §V), and `baseline`, stream and collision
/// as separate passes; they compute the same bits, and tests/lbm/refined_reference.hpp is the
/// oracle of both. AB for now; the box's sides periodic or closed (walls at rest, half-way
/// bounce-back, which the jumps may meet), walls inside the box a block away from the jumps, inlets
/// and outlets (regularized) on any level, each level's inflow parabolas in its own voxels
/// (level_boundaries); on one
/// rank or on several: a rank's part of the grid (RefinedGrid's partition constructor, every level
/// cut where the coarsest is) has a halo block plane on each side of every level, which an
/// exchanger fills after each step of that level. The states a step keeps are copies, made between
/// kernels, of the voxels the coupled pulls read from them (halo voxels included, so one exchange a
/// step serves them too), a slot each, not whole lattices.

#include <karman/core/dense/slab_halo_plan.hpp>
#include <karman/core/error.hpp>
#include <karman/core/field.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_neighbours.hpp>
#include <karman/core/sparse/for_each_block.hpp>
#include <karman/core/to_device.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/level_coupling.hpp>
#include <karman/lbm/level_relaxation.hpp>
#include <karman/lbm/refined_geometry.hpp>
#include <karman/lbm/refined_options.hpp>
#include <karman/lbm/stream_collide.hpp>
#include <karman/lbm/update_schedule.hpp>
#include <karman/lbm/velocity_set.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace karman::lbm {

/// The populations of one level of a refined grid: Q values a voxel of the level grid, the
/// voxels of each population contiguous (SoA), on the grid's groups so that an exchanger moves
/// its shared and halo blocks.
template <class T, class MemorySpace>
using RefinedField = Field<T, SoA, MemorySpace>;

/// The solver's stream-collide kernel on a level grid (StreamCollide on BlockNeighbours, AB) with
/// the kernel features `Feat`: the update of the leaf blocks away from a level jump.
template <class L, class T, class Collision, int B, class MemorySpace, class Feat>
using RefinedStreamCollide =
    StreamCollide<L, T, SoA, MemorySpace, Collision, StepKind::ab_pull, Feat, BlockNeighbours<L::D, B, MemorySpace>>;

/// The update of the leaf blocks at a level jump: the uniform kernel's (RefinedStreamCollide),
/// but for the populations the coupling tables list for this sub-step (level_coupling.hpp), which
/// are pulled from their sources: one, or the mean of 2^D in order. The others are pulled as the
/// uniform kernel pulls them, walls bounced alike, and every voxel relaxes and is stored as there,
/// so that a uniform level runs the same arithmetic whichever kernel updates a voxel. Without
/// `Collides` it stores the pulled populations before any collision (the baseline schedule's
/// stream pass, RefinedSchedule).
template <class L, class T, class Collision, int B, class MemorySpace, class Feat, bool Collides = true>
struct CoupledStreamCollide {
  static_assert(Feat::flags, "karman::lbm::CoupledStreamCollide: jump blocks read their flag words");
  using uniform_type = RefinedStreamCollide<L, T, Collision, B, MemorySpace, Feat>;
  using field_type = RefinedField<T, MemorySpace>;
  using shape = BlockShape<L::D, B>;
  uniform_type uniform;
  /// By CoupledState: own, own_start, coarser, finer_half, finer_start (empty where absent).
  field_type states[5];
  Kokkos::View<const int*, MemorySpace> jump_slot;  ///< per block: its place among the jump blocks, or -1
  Kokkos::View<const int*, MemorySpace> coupled;    ///< ((slot * voxels + local) * Q + i) * 2 + s: pull or -1
  /// slot * voxels + local: bit s set where the voxel has a coupled pull in sub-step s (the others
  /// pull as the uniform kernel, without reading `coupled`).
  Kokkos::View<const std::uint8_t*, MemorySpace> coupled_substeps;
  Kokkos::View<const CoupledPull*, MemorySpace> pulls;
  Kokkos::View<const CoupledSource*, MemorySpace> sources;
  Kokkos::View<const ExplosionStencil*, MemorySpace> stencils;  ///< the linear explosion's (level_coupling.hpp)
  int substep = 0;

  KARMAN_KERNEL_BODY KARMAN_FLATTEN void operator()(index_t v) const {
    const auto& access = uniform.access;
    const flag_t fl = access.flags(v);
    if (flags::kind(fl) == CellKind::solid) return;
    const BlockNeighbours<L::D, B, MemorySpace> n(v, access.topology);
    const auto planes = access.plane_spans(v);
    const int slot = jump_slot(block_index_t(v / shape::voxels)), local = int(v % shape::voxels);
    const index_t at = index_t(slot) * shape::voxels + local;
    T f[L::Q];
    if (((coupled_substeps(at) >> substep) & 1) == 0) {
      access.load(v, fl, n, planes, f);
    } else {
      const index_t row = at * L::Q;
      // Unrolled at compile time, so that each uniform pull's direction is a constant, as in the
      // uniform kernel (a runtime loop left them as calls through the lattice's tables).
      static_for<L::Q>([&](auto population) KARMAN_INLINE_LAMBDA {
        constexpr int i = population;
        const int e = coupled((row + i) * 2 + substep);
        f[i] = e < 0 ? access.pull(v, fl, n, planes, i) : coupled_pull(e, i);
      });
      access.regularize_open_boundary(v, fl, f);
    }
    if constexpr (Collides) uniform.relax(v, f);
    access.store(v, n, planes, f);
  }

  /// Population i of coupled pull e: its one source, or the mean of its sources in order.
  KOKKOS_INLINE_FUNCTION T coupled_pull(int e, int i) const {
    const CoupledPull p = pulls(e);
    if (p.count == 1) return value(sources(p.first), i);
    T sum = 0;
    for (std::uint32_t k = 0; k < p.count; ++k) sum += value(sources(p.first + k), i);
    return sum / T(p.count);
  }

  /// What source s holds of population i: population i, or its opposite where the source's path
  /// was bounced off a closed side (at rest: no moving-wall term); for the child of a voxel that a
  /// stencil names (linear explosion), the voxel's value plus its gradient times the child's offset,
  /// a quarter of the voxel along each axis.
  KOKKOS_INLINE_FUNCTION T value(const CoupledSource& s, int i) const {
    const int q = s.reversed ? L::opposite(i) : i;
    const field_type& state = states[int(s.state)];
    const T centre = state(s.voxel, q);
    if (s.stencil < 0) return centre;
    const ExplosionStencil& at = stencils(s.stencil);
    T offset = 0;
    for (int a = 0; a < L::D; ++a) {
      if (at.below[a] < 0 || at.above[a] < 0) continue;
      offset += T(at.side[a]) * (state(at.above[a], q) - state(at.below[a], q)) / T(2);
    }
    return centre + offset / T(4);
  }
};

/// The baseline schedule's stream pass over leaf blocks away from a jump: the uniform kernel's
/// pull (bounce-back and open boundaries included), stored before any collision.
template <class L, class T, class Collision, int B, class MemorySpace, class Feat>
struct RefinedStreamPass {
  RefinedStreamCollide<L, T, Collision, B, MemorySpace, Feat> uniform;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const auto& access = uniform.access;
    flag_t fl = 0;
    if constexpr (Feat::flags) {
      fl = access.flags(v);
      if (flags::kind(fl) == CellKind::solid) return;
    }
    const BlockNeighbours<L::D, B, MemorySpace> n(v, access.topology);
    const auto planes = access.plane_spans(v);
    T f[L::Q];
    access.load(v, fl, n, planes, f);
    access.store(v, n, planes, f);
  }
};

/// The baseline schedule's collide pass over leaf blocks: the uniform kernel's collision of the
/// populations the stream pass stored, in place (the kernel's read and written lattices the same).
template <class L, class T, class Collision, int B, class MemorySpace, class Feat>
struct RefinedCollidePass {
  static_assert(Feat::flags, "karman::lbm::RefinedCollidePass: the pass skips solid voxels by their flag words");
  RefinedStreamCollide<L, T, Collision, B, MemorySpace, Feat> uniform;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const auto& access = uniform.access;
    if (flags::kind(access.flags(v)) == CellKind::solid) return;
    T f[L::Q];
    for (int i = 0; i < L::Q; ++i) f[i] = access.get(v, i);
    uniform.relax(v, f);
    for (int i = 0; i < L::Q; ++i) access.put(v, i, f[i]);
  }
};

/// Copies the populations of the voxels a level's kept state holds (`kept`: a voxel of the level
/// grid a slot) from the level's lattice into the kept state.
template <class T, class MemorySpace, int Q>
struct KeepStates {
  RefinedField<T, MemorySpace> from, into;
  Kokkos::View<const index_t*, MemorySpace> kept;
  KOKKOS_INLINE_FUNCTION void operator()(index_t slot) const {
    const index_t voxel = kept(slot);
    for (int i = 0; i < Q; ++i) into(slot, i) = from(voxel, i);
  }
};

/// How a RefinedStep runs, besides its levels and rates.
struct RefinedStepOptions {
  RefinedGeometry geometry;  ///< the walls (none: a fluid box, its closed sides walls at rest)
  /// The cut links of the curved body (geometry.curved_id) on the finest level, in its grid's
  /// voxels (curved_wall.hpp); the body lies on the finest level, a block away from the jumps.
  std::vector<WallLink> finest_links;
  RefinedSchedule schedule = RefinedSchedule::disaggregated;
  Explosion explosion = Explosion::constant;  ///< how a coarser value reaches the finer voxels
};

/// The populations of every level of a refined grid and its step.
template <class L, class T, class Collision, int B, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class RefinedStep {
 public:
  static constexpr int Dim = L::D;
  using grid_type = RefinedGrid<Dim, B, MemorySpace>;
  using field_type = RefinedField<T, MemorySpace>;
  using exchanger_type = HaloExchanger<field_type>;
  using shape = BlockShape<Dim, B>;
  using execution_space = typename MemorySpace::execution_space;

  /// The levels of `grid`, built from `levels` and `options.geometry` (read here only; `grid` must
  /// outlive the step, built with refined_boundary(levels, geometry) where there are walls), the
  /// coarsest relaxing at `coarsest`, every population zero. On a rank's part of a grid, `halos`
  /// fills every level's halo blocks (one exchanger serves every level: an MPI exchanger between
  /// the ranks of the partition); null on one rank, whose level grids wrap their periodic sides
  /// themselves. A level jump may meet a closed side of the box or a wall at rest; throws
  /// karman::Error where a moving wall, the curved body, an inlet or an outlet comes next to a level
  /// jump (not coupled), or where the grid's boundary blocks miss a wall of the geometry.
  RefinedStep(const RefinedLevels<Dim>& levels, const grid_type& grid, const RelaxationParams& coarsest,
              std::unique_ptr<exchanger_type> halos = nullptr, const RefinedStepOptions& options = {})
      : m_grid(&grid),
        m_levels(std::size_t(grid.levels())),
        m_halos(std::move(halos)),
        m_schedule(options.schedule),
        m_walls_move(options.geometry.walls_move()) {
    const LevelCoupling<L, B> coupling(levels, grid, options.explosion, options.geometry);
    const int top = grid.levels() - 1;
    std::vector<Kokkos::View<flag_t*, Kokkos::HostSpace>> flag_words(m_levels.size());
    for (int l = 0; l <= top; ++l) {
      Level& level = m_levels[std::size_t(l)];
      const RelaxationParams params = refined_relaxation(coarsest, top - l);
      level.rates = collision_rates<Collision, T>(params);
      level.boundaries = level_boundaries(options.geometry.boundaries, l);
      for (int a = 0; a < 3; ++a) {
        level.force[a] = T(params.force[a]);
        m_forced = m_forced || params.force[a] != 0;
      }
      if (grid.empty(l)) continue;
      const GroupTable groups = grid.level(l).group_table();
      const std::string name = "karman::refined_level" + std::to_string(l);
      level.f = field_type(name, groups, L::Q);
      level.next = field_type(name + "_next", groups, L::Q);
      // The AB plan of a block-sparse solver (halo_plans.hpp): the populations crossing towards
      // each neighbour leave through the shared blocks facing it into its halo blocks facing back.
      // The linear explosion's gradient stencils read every population of a halo voxel: all cross.
      if (m_halos) {
        const bool all = options.explosion == Explosion::linear;
        level.halo_plan = slab_halo_plan(groups, Dim - 1, all ? ComponentRange{0, L::Q} : L::towards_upper(),
                                         all ? ComponentRange{0, L::Q} : L::towards_lower());
      }
      for (int g = 0; g < groups.size(); ++g)
        if (groups[g].role != GroupRole::halo) level.owned_groups.push_back(g);
      flag_words[std::size_t(l)] = set_flags(l, levels, options.geometry);
    }
    std::vector<std::vector<CoupledSource>> sources(m_levels.size());
    for (int l = 0; l <= top; ++l) sources[std::size_t(l)] = coupling.sources(l);
    keep_only_what_is_read(sources);
    for (int l = 0; l <= top; ++l) {
      if (!grid.empty(l)) set_coupling(l, coupling, sources[std::size_t(l)], flag_words);
    }
    if (!options.finest_links.empty()) {
      if (m_halos) throw Error("karman::lbm::RefinedStep: curved walls run on one rank only");
      m_links = to_device<MemorySpace>("karman::refined_wall_links", options.finest_links);
    }
  }

  /// The cut links of the curved body on the finest level.
  std::size_t wall_links() const { return m_links.extent(0); }

  /// The force on the curved body in the finest level's lattice units: the momentum it takes from
  /// the fluid in a finest step by momentum exchange over its cut links (curved_wall.hpp), from the
  /// finest level's current state.
  std::array<double, 3> wall_force() {
    std::array<double, 3> force{0, 0, 0};
    if (m_links.extent(0) == 0) return force;
    fill_wall_links();
    for (int a = 0; a < Dim; ++a) {
      Kokkos::parallel_reduce(
          "karman::refined_momentum_exchange", Kokkos::RangePolicy<execution_space>(0, m_links.extent(0)),
          MomentumExchange<L, T, field_type, MemorySpace>{m_levels[0].f, m_links, a}, force[std::size_t(a)]);
    }
    return force;
  }

  /// The voxels of `level` whose populations the step keeps between kernels (the states at the
  /// start of the coarser level's step and after the first of its own two steps): those the coupled
  /// pulls read, next to the jumps.
  index_t kept_voxels(int level) const { return index_t(m_levels.at(std::size_t(level)).kept.extent(0)); }

  /// The post-collision populations of `level` (voxel of its grid, population).
  field_type populations(int level) const { return m_levels.at(std::size_t(level)).f; }

  /// The exchanger that fills the halo blocks; null on one rank.
  const exchanger_type* halos() const { return m_halos.get(); }
  exchanger_type* halos() { return m_halos.get(); }

  /// The flag words of `level` (voxel of its grid; cell_flags.hpp).
  Kokkos::View<const flag_t*, MemorySpace> flags(int level) const { return m_levels.at(std::size_t(level)).flags; }

  /// Fills every level's halo blocks from the neighbours' shared blocks: after populations()
  /// were written (each kernel's output is exchanged by step() itself). Collective with an
  /// exchanger; nothing on one rank.
  void exchange_halos() {
    for (int l = 0; l < int(m_levels.size()); ++l) exchange(l);
  }

  /// One step of the coarsest level: 2^(levels - 1 - l) steps of level l. Collective with an
  /// exchanger.
  void step() { advance(int(m_levels.size()) - 1, 0); }

 private:
  struct Level {
    field_type f, next;
    field_type at_start, at_half;              ///< the kept states, a slot a kept voxel
    Kokkos::View<index_t*, MemorySpace> kept;  ///< the level grid's voxel of each slot
    HaloPlan halo_plan;
    std::vector<int> owned_groups;             ///< the level grid's interior and shared groups
    Kokkos::View<flag_t*, MemorySpace> flags;  ///< a flag word a voxel of the level grid (cell_flags.hpp)
    CollisionRates<T> rates;
    BoundaryTable boundaries;  ///< the walls' and open boundaries' values in the level's voxels
    T force[3] = {0, 0, 0};
    Kokkos::View<int*, MemorySpace> jump_slot, coupled;
    Kokkos::View<std::uint8_t*, MemorySpace> coupled_substeps;
    Kokkos::View<CoupledPull*, MemorySpace> pulls;
    Kokkos::View<CoupledSource*, MemorySpace> sources;
    Kokkos::View<ExplosionStencil*, MemorySpace> stencils;
  };

  /// Gives every level kept states for the voxels the coupled pulls read from them only (a level's
  /// own state at the coarser step's start, and the finer level's states the coalescence reads),
  /// and points those sources at the slots: the kept states are copies of a few voxels next to
  /// the jumps, not lattices.
  void keep_only_what_is_read(std::vector<std::vector<CoupledSource>>& sources) {
    const int levels = int(m_levels.size());
    const auto kept_level = [](int l, CoupledState state) {
      const bool kept =
          state == CoupledState::own_start || state == CoupledState::finer_half || state == CoupledState::finer_start;
      return kept ? level_of(l, state) : -1;
    };
    std::vector<std::vector<index_t>> kept(m_levels.size());
    for (int l = 0; l < levels; ++l) {
      for (const CoupledSource& source : sources[std::size_t(l)]) {
        const int k = kept_level(l, source.state);
        if (k >= 0) kept[std::size_t(k)].push_back(source.voxel);
      }
    }
    for (auto& voxels : kept) {
      std::sort(voxels.begin(), voxels.end());
      voxels.erase(std::unique(voxels.begin(), voxels.end()), voxels.end());
    }
    for (int l = 0; l < levels; ++l) {
      for (CoupledSource& source : sources[std::size_t(l)]) {
        const int k = kept_level(l, source.state);
        if (k < 0) continue;
        const auto& voxels = kept[std::size_t(k)];
        source.voxel = index_t(std::lower_bound(voxels.begin(), voxels.end(), source.voxel) - voxels.begin());
      }
    }
    for (int l = 0; l < levels; ++l) {
      if (m_grid->empty(l)) continue;
      Level& level = m_levels[std::size_t(l)];
      const auto& voxels = kept[std::size_t(l)];
      const std::string name = "karman::refined_level" + std::to_string(l);
      level.at_start = field_type(name + "_at_start", GroupTable::single(index_t(voxels.size())), L::Q);
      level.at_half = field_type(name + "_at_half", GroupTable::single(index_t(voxels.size())), L::Q);
      level.kept = to_device<MemorySpace>(name + "_kept", voxels);
    }
  }

  /// Copies level l's voxels its kept states hold from its lattice into `state`.
  void keep(int l, const field_type& state) {
    const Level& level = m_levels[std::size_t(l)];
    if (level.kept.extent(0) == 0) return;
    Kokkos::parallel_for("karman::refined_keep_states",
                         Kokkos::RangePolicy<execution_space>(0, index_t(level.kept.extent(0))),
                         KeepStates<T, MemorySpace, L::Q>{level.f, state, level.kept});
  }

  /// Level l's flag words (refined_geometry.hpp), uploaded; returns the host copy. Throws
  /// karman::Error where a leaf block away from a jump holds a voxel that needs its flag word but
  /// the grid runs it as a bulk block.
  Kokkos::View<flag_t*, Kokkos::HostSpace> set_flags(int l, const RefinedLevels<Dim>& levels,
                                                     const RefinedGeometry& geometry) {
    const auto& grid = m_grid->level(l);
    const std::vector<std::array<int, 3>> velocities = velocity_set<L>();
    Kokkos::View<flag_t*, Kokkos::HostSpace> host("karman::refined_flags", std::size_t(grid.voxel_count()));
    const BlockRange bulk = grid.span(BlockSet::non_boundary, int(RefinedBlockRole::leaf));
    for (block_index_t b = 0; b < grid.block_count(); ++b) {
      for (int local = 0; local < shape::voxels; ++local) {
        const index_t voxel = index_t(b) * shape::voxels + local;
        const std::array<int, 3> x = m_grid->voxel_coordinates(l, voxel);
        const flag_t word = refined_flag<L>(levels, geometry, l, x, velocities);
        host(std::size_t(voxel)) = word;
        const bool runs_as_bulk =
            b >= bulk.begin && b < bulk.end && (grid.grouping() == BlockGrouping::memory || !grid.boundary(b));
        if (runs_as_bulk && !is_bulk(word)) {
          throw Error("karman::lbm::RefinedStep: level " + std::to_string(l) + " voxel (" + std::to_string(x[0]) +
                      ", " + std::to_string(x[1]) + ", " + std::to_string(x[2]) +
                      ") is a wall or next to one, but its grid runs its block without flag words: build the "
                      "RefinedGrid with refined_boundary(levels, geometry)");
        }
      }
    }
    m_levels[std::size_t(l)].flags = Kokkos::create_mirror_view_and_copy(MemorySpace(), host);
    return host;
  }

  /// The level whose lattice a coupled pull of level l reads from `state`.
  static int level_of(int l, CoupledState state) {
    if (state == CoupledState::coarser) return l + 1;
    if (state == CoupledState::finer_half || state == CoupledState::finer_start) return l - 1;
    return l;
  }

  /// Throws karman::Error where a coupled pull of level l reads a voxel of the curved body (the
  /// tables bounce the paths off walls and closed sides at rest, level_coupling.hpp; the body's
  /// voxels hold the reflected populations of the finest level's links only) and where a jump
  /// meets an inlet or outlet: a voxel of one pulls across the jump, or a coupled pull reads one
  /// (the regularized boundary rebuilt from coupled populations left a steady defect of a fifth of
  /// the peak velocity in a channel whose jumps ran into its inlet and outlet,
  /// tests/lbm/refined_open_boundaries_test.cpp).
  void refuse_boundaries_at_jumps(int l, const LevelCoupling<L, B>& coupling,
                                  const std::vector<Kokkos::View<flag_t*, Kokkos::HostSpace>>& flag_words) const {
    const auto refuse = [&](index_t voxel, const std::string& what) {
      const std::array<int, 3> x = m_grid->voxel_coordinates(l, voxel);
      throw Error("karman::lbm::RefinedStep: level " + std::to_string(l) + " voxel (" + std::to_string(x[0]) + ", " +
                  std::to_string(x[1]) + ", " + std::to_string(x[2]) + ") is next to a level jump and " + what);
    };
    const char* body = "; the curved body must lie a block away from the level jumps";
    const char* open = "; an inlet or outlet at a level jump is not supported: refine all of its plane or none of it";
    const auto& own = flag_words[std::size_t(l)];
    for (const CoupledPull& p : coupling.pulls(l)) {
      const flag_t word = own(std::size_t(p.voxel));
      if (flags::kind(word) == CellKind::solid) continue;
      if (is_open_boundary(flags::kind(word))) refuse(p.voxel, std::string("is an inlet or outlet") + open);
      for (std::uint32_t k = 0; k < p.count; ++k) {
        const CoupledSource& source = coupling.sources(l)[p.first + k];
        const auto& words = flag_words[std::size_t(level_of(l, source.state))];
        if (flags::kind(words(std::size_t(source.voxel))) == CellKind::solid) {
          refuse(p.voxel, std::string("pulls from a voxel of the curved body") + body);
        }
        if (is_open_boundary(flags::kind(words(std::size_t(source.voxel)))))
          refuse(p.voxel, std::string("pulls from an inlet or outlet") + open);
      }
    }
  }

  /// Level l's coupling tables, uploaded: `sources` are the coupling's, the kept states' slots in
  /// place of their voxels (keep_only_what_is_read).
  void set_coupling(int l, const LevelCoupling<L, B>& coupling, const std::vector<CoupledSource>& sources,
                    const std::vector<Kokkos::View<flag_t*, Kokkos::HostSpace>>& flag_words) {
    refuse_boundaries_at_jumps(l, coupling, flag_words);
    Level& level = m_levels[std::size_t(l)];
    const auto& grid = m_grid->level(l);
    Kokkos::View<int*, Kokkos::HostSpace> slot("karman::refined_jump_slot", std::size_t(grid.block_count()));
    int jump_blocks = 0;
    for (block_index_t b = 0; b < grid.block_count(); ++b)
      slot(std::size_t(b)) = m_grid->role(l, b) == RefinedBlockRole::leaf_at_jump ? jump_blocks++ : -1;
    Kokkos::View<int*, Kokkos::HostSpace> coupled("karman::refined_coupled",
                                                  std::size_t(jump_blocks) * shape::voxels * L::Q * 2);
    Kokkos::View<std::uint8_t*, Kokkos::HostSpace> substeps("karman::refined_coupled_substeps",
                                                            std::size_t(jump_blocks) * shape::voxels);
    Kokkos::deep_copy(coupled, -1);
    const auto& pulls = coupling.pulls(l);
    for (std::size_t e = 0; e < pulls.size(); ++e) {
      const CoupledPull& p = pulls[e];
      const index_t b = p.voxel / shape::voxels, local = p.voxel % shape::voxels;
      const std::size_t at = std::size_t(slot(std::size_t(b)) * shape::voxels + local);
      for (int s = 0; s < 2; ++s) {
        if ((p.substeps >> s) & 1) coupled((at * L::Q + std::size_t(p.population)) * 2 + std::size_t(s)) = int(e);
      }
      substeps(at) |= std::uint8_t(p.substeps);
    }
    level.jump_slot = Kokkos::create_mirror_view_and_copy(MemorySpace(), slot);
    level.coupled = Kokkos::create_mirror_view_and_copy(MemorySpace(), coupled);
    level.coupled_substeps = Kokkos::create_mirror_view_and_copy(MemorySpace(), substeps);
    level.pulls = to_device<MemorySpace>("karman::refined_pulls", pulls);
    level.sources = to_device<MemorySpace>("karman::refined_sources", sources);
    level.stencils = to_device<MemorySpace>("karman::refined_stencils", coupling.stencils(l));
  }

  /// Level l's step, sub-step s of the next coarser level's (0 on the coarsest level).
  void advance(int l, int s) {
    Level& level = m_levels[std::size_t(l)];
    const bool stored = !m_grid->empty(l);
    if (s == 0 && stored) keep(l, level.at_start);
    if (l > 0) {
      advance(l - 1, 0);
      Level& finer = m_levels[std::size_t(l - 1)];
      if (!m_grid->empty(l - 1)) keep(l - 1, finer.at_half);
      advance(l - 1, 1);
    }
    if (!stored) return;
    if (l == 0) fill_wall_links();
    if (m_forced) {
      launch<true>(l, s);
    } else {
      launch<false>(l, s);
    }
    std::swap(level.f, level.next);
    exchange(l);
  }

  /// Writes the reflected population of every cut link of the curved body into its solid voxel's
  /// slot of the finest level's lattice, which the next finest step reads (curved_wall.hpp);
  /// idempotent.
  void fill_wall_links() const {
    if (m_links.extent(0) == 0) return;
    Kokkos::parallel_for("karman::refined_fill_wall_links", Kokkos::RangePolicy<execution_space>(0, m_links.extent(0)),
                         FillWallLinks<L, T, field_type, MemorySpace>{m_levels[0].f, m_links});
  }

  /// Fills level l's halo blocks (a rank's part of a grid; nothing on one rank).
  void exchange(int l) {
    if (!m_halos || m_grid->empty(l)) return;
    const Level& level = m_levels[std::size_t(l)];
    m_halos->start(level.f, level.halo_plan);
    m_halos->finish();
  }

  /// Level l's kernels for sub-step s, into level.next, over each owned group of the level grid
  /// (the interior and, on a rank among several, the shared groups): its leaf blocks away from a
  /// jump by the solver's kernel, those at a closed side with flag words (the interior's boundary
  /// blocks, and every shared block) and the others without; its leaf blocks at a jump by the
  /// coupled kernel. The overlap blocks are not computed.
  template <bool Forced>
  void launch(int l, int s) {
    if (m_walls_move) {
      launch<Forced, true>(l, s);
    } else {
      launch<Forced, false>(l, s);
    }
  }
  template <bool Forced, bool MovingWalls>
  void launch(int l, int s) {
    using Walls = Features<true, Forced, false, MovingWalls>;
    if (m_schedule == RefinedSchedule::baseline) {
      launch_passes<Walls>(l, s);
    } else {
      launch_fused<Walls>(l, s);
    }
  }
  template <class Walls>
  void launch_fused(int l, int s) {
    using Bulk = Features<false, Walls::forced>;
    const execution_space space;
    const auto& grid = m_grid->level(l);
    constexpr int leaf = int(RefinedBlockRole::leaf), jump = int(RefinedBlockRole::leaf_at_jump);
    for (const int g : m_levels[std::size_t(l)].owned_groups) {
      if (g == grid.interior_group()) {
        for_each("karman::refined_stream_collide_boundary", grid, BlockSet::boundary, leaf, space, uniform<Walls>(l));
        for_each("karman::refined_stream_collide_non_boundary", grid, BlockSet::non_boundary, leaf, space,
                 uniform<Bulk>(l));
      } else {
        for_each("karman::refined_stream_collide_shared", grid, grid.group_blocks(g, leaf), space, uniform<Walls>(l));
      }
      for_each("karman::refined_stream_collide_at_jumps", grid, grid.group_blocks(g, jump), space,
               coupled<Walls>(l, s));
    }
  }

  /// Level l's passes for sub-step s in the baseline schedule, into level.next: the stream pass over
  /// each owned group's leaf blocks (away from a jump and at one), then the collide pass over them.
  template <class Walls>
  void launch_passes(int l, int s) {
    const execution_space space;
    const auto& grid = m_grid->level(l);
    constexpr int leaf = int(RefinedBlockRole::leaf), jump = int(RefinedBlockRole::leaf_at_jump);
    const auto& groups = m_levels[std::size_t(l)].owned_groups;
    for (const int g : groups) {
      for_each("karman::refined_stream", grid, grid.group_blocks(g, leaf), space,
               RefinedStreamPass<L, T, Collision, B, MemorySpace, Walls>{uniform<Walls>(l)});
      for_each("karman::refined_stream_at_jumps", grid, grid.group_blocks(g, jump), space, coupled<Walls, false>(l, s));
    }
    RefinedCollidePass<L, T, Collision, B, MemorySpace, Walls> collide{uniform<Walls>(l)};
    collide.uniform.access.src = collide.uniform.access.dst;
    for (const int g : groups) {
      for (const int kind : {leaf, jump})
        for_each("karman::refined_collide", grid, grid.group_blocks(g, kind), space, collide);
    }
  }

  /// The uniform kernel of level l.
  template <class Feat>
  RefinedStreamCollide<L, T, Collision, B, MemorySpace, Feat> uniform(int l) const {
    const Level& level = m_levels[std::size_t(l)];
    RefinedStreamCollide<L, T, Collision, B, MemorySpace, Feat> kernel{
        {level.f, level.next, level.flags, level.boundaries, m_grid->level(l).view()}, level.rates, {}, {}};
    for (int a = 0; a < 3; ++a) kernel.force[a] = level.force[a];
    return kernel;
  }

  /// The kernel of level l's jump blocks in sub-step s (without the collision: the baseline's
  /// stream pass).
  template <class Feat, bool Collides = true>
  CoupledStreamCollide<L, T, Collision, B, MemorySpace, Feat, Collides> coupled(int l, int s) const {
    const Level& level = m_levels[std::size_t(l)];
    CoupledStreamCollide<L, T, Collision, B, MemorySpace, Feat, Collides> kernel{
        uniform<Feat>(l), {}, level.jump_slot, level.coupled, level.coupled_substeps, level.pulls, level.sources,
        level.stencils,   s};
    kernel.states[int(CoupledState::own)] = level.f;
    kernel.states[int(CoupledState::own_start)] = level.at_start;
    if (l + 1 < int(m_levels.size())) kernel.states[int(CoupledState::coarser)] = m_levels[std::size_t(l + 1)].f;
    if (l > 0) {
      kernel.states[int(CoupledState::finer_half)] = m_levels[std::size_t(l - 1)].at_half;
      kernel.states[int(CoupledState::finer_start)] = m_levels[std::size_t(l - 1)].at_start;
    }
    return kernel;
  }

  const grid_type* m_grid;
  std::vector<Level> m_levels;
  std::unique_ptr<exchanger_type> m_halos;
  RefinedSchedule m_schedule;
  bool m_walls_move;                             ///< a wall moves: the boundary kernels add Ladd's term
  bool m_forced = false;                         ///< a body force: the Guo kernels
  Kokkos::View<WallLink*, MemorySpace> m_links;  ///< the curved body's cut links on the finest level
};

}  // namespace karman::lbm
