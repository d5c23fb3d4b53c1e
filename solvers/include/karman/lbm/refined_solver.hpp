#pragma once
/// \file refined_solver.hpp
/// A refined grid's step (refined_step.hpp) behind the solver's runtime face (FlowSolver), so
/// that a case runs on it through the one run loop every grid shares: progress, residuals,
/// fields, checkpoints, restart, stop signals and the divergence check. The case's setup is given
/// on the finest level (its box, geometry, initial state and relaxation, as a dense run of that
/// resolution would take them); the levels say where the grid is coarser.
///
/// The face shows the refined grid as its finest level's box: moments() and the checkpoints'
/// populations and flags hold, for every finest voxel, those of the leaf voxel covering it (a
/// coarser leaf's values repeated over its 2^D, 4^D, ... finest voxels), and a restart reads each
/// leaf from its first finest voxel, so it continues bit for bit. This costs a finest box of host
/// memory when a checkpoint or output is written (per-level files are the next step,
/// docs/multiresolution.md). On several ranks each owns the coarsest level's block planes a
/// BlockPartition gives it (refined_plane_work: the work of every level shared out), every finer
/// level cut alike, so its part of the finest box is a slab, which is what the face shows; halos
/// move through the comm layer's exchanger after every kernel (refined_step.hpp). AB.

#include <karman/core/error.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/core/sparse/block_partition.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/level_relaxation.hpp>
#include <karman/lbm/refined_geometry.hpp>
#include <karman/lbm/refined_solver_factory.hpp>
#include <karman/lbm/refined_step.hpp>
#include <karman/lbm/setup_transport.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/variant_fold.hpp>
#include <karman/lbm/velocity_set.hpp>
#include <karman/lbm/wall_link_order.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace karman::lbm {

/// Moments of every finest voxel from the leaf voxel covering it: density and velocity, zeros in
/// walls; the velocity of the Guo-forced step, (j* - F/2) / rho with j* the post-collision momentum.
template <class L, class T, class MemorySpace>
struct CompositeMoments {
  static constexpr std::uint8_t wall = 0xff;  ///< level_of of a wall voxel
  RefinedField<T, MemorySpace> f[RefinedLevels<L::D>::max_levels];
  double half_force[RefinedLevels<L::D>::max_levels][3] = {};
  Kokkos::View<const std::uint8_t*, MemorySpace> level_of;  ///< the covering leaf's level, or `wall`
  Kokkos::View<const index_t*, MemorySpace> voxel_of;       ///< its voxel of that level's grid
  Kokkos::View<double*> rho;
  Kokkos::View<double**, Kokkos::LayoutLeft> u;

  KOKKOS_INLINE_FUNCTION void operator()(index_t k) const {
    const int l = level_of(k);
    if (l == wall) {
      rho(k) = 0;
      for (int a = 0; a < 3; ++a) u(k, a) = 0;
      return;
    }
    const index_t v = voxel_of(k);
    double r = 0, j[3] = {0, 0, 0};
    for (int i = 0; i < L::Q; ++i) {
      const double fi = double(f[l](v, i));
      r += fi;
      for (int a = 0; a < L::D; ++a) j[a] += L::c(i, a) * fi;
    }
    rho(k) = r;
    for (int a = 0; a < 3; ++a) u(k, a) = (j[a] - half_force[l][a]) / r;
  }
};

/// The solver of lattice L, precision T and collision Collision on a refined grid of blocks of B
/// voxels a side.
template <class L, class T, class Collision, int B>
class RefinedSolver final : public FlowSolver {
 public:
  static constexpr int Dim = L::D;
  using MemorySpace = Kokkos::DefaultExecutionSpace::memory_space;
  using step_type = RefinedStep<L, T, Collision, B, MemorySpace>;
  using grid_type = typename step_type::grid_type;
  using shape = BlockShape<Dim, B>;

  /// The run of `setup` (its box the finest level of `levels`; AB, no per-voxel force, curved wall
  /// or immersed body) with `schedule` and `explosion`, this rank's part when setup.ranks > 1. A voxel of level l is
  /// what setup.geometry says of its representative finest voxel (representative_finest_voxel); throws
  /// karman::Error, naming the voxels, where a leaf of a coarser level covers finest voxels of different kinds or
  /// ids (the walls must lie on one level; an inlet or outlet may cover fluid), and whatever RefinedStep refuses
  /// (walls next to a level jump).
  RefinedSolver(const SolverSetup& setup, RefinedLevels<Dim> levels, RefinedSchedule schedule, Explosion explosion)
      : m_levels(std::move(levels)),
        m_rank(setup.rank),
        m_collision(setup.variant.collision.name()),
        m_schedule(schedule),
        m_explosion(explosion) {
    refuse_what_is_not_refined(setup);
    m_box.global = m_box.extents = setup.global;
    m_geometry.boundaries = setup.boundaries;
    m_geometry.curved_id = setup.curved_wall.id;
    if (setup.geometry) {
      m_geometry.cell = [geometry = setup.geometry, this](int level, const std::array<int, 3>& x) {
        const LevelBlockCoordinates block{x[0] / B, x[1] / B, x[2] / B};
        if (m_levels.cover(level, block) != LevelCover::leaf) return CellSpec{};
        const std::array<int, 3> at = representative_finest_voxel(level, x);
        return geometry(at[0], at[1], at[2]);
      };
    }
    const int top = m_levels.levels() - 1, axis = Dim - 1;
    std::unique_ptr<typename step_type::exchanger_type> halos;
    if (setup.ranks > 1) {
      const BlockPartition partition(refined_plane_work(m_levels), setup.ranks);
      m_grid = std::make_unique<grid_type>("karman::refined", m_levels, partition, setup.rank, BlockGrouping::memory,
                                           refined_boundary<L, B, MemorySpace>(m_levels, m_geometry));
      const OwnedBlockPlanes planes = partition.owned(setup.rank);
      const int span = B << top;  // finest voxels a coarsest block spans
      m_box.begin[std::size_t(axis)] = planes.begin * span;
      (axis == 2 ? m_box.extents.nz : m_box.extents.ny) = planes.count * span;
      m_box.grid[std::size_t(axis)] = setup.ranks;
      // The exchanger needs the neighbours' ranks only: any slab decomposition of the ranks gives them.
      halos = comm::slab_and_exchanger<typename step_type::field_type>(
                  m_levels.block_lattice(top), setup.periodic[std::size_t(axis)], transport_of(setup),
                  Kokkos::DefaultExecutionSpace())
                  .exchanger;
    } else {
      m_grid = std::make_unique<grid_type>("karman::refined", m_levels, BlockGrouping::memory,
                                           refined_boundary<L, B, MemorySpace>(m_levels, m_geometry));
    }
    map_finest_voxels(setup);
    RefinedStepOptions options;
    options.geometry = m_geometry;
    options.finest_links = finest_wall_links(setup);
    options.schedule = schedule;
    options.explosion = explosion;
    m_step = std::make_unique<step_type>(m_levels, *m_grid, coarsened_relaxation(setup.relaxation, top),
                                         std::move(halos), options);
    for (int a = 0; a < 3; ++a) m_force[a] = setup.relaxation.force[a];
    initialize(setup);
  }

  void advance(int n) override {
    for (int s = 0; s < n; ++s) {
      m_step->step();
      ++m_steps;
    }
  }
  std::int64_t steps() const override { return m_steps; }

  MomentFields moments() override {
    const index_t n = m_box.size();
    CompositeMoments<L, T, MemorySpace> kernel;
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (!m_grid->empty(l)) kernel.f[l] = m_step->populations(l);
      // The body force doubles per level coarser (refined_relaxation).
      for (int a = 0; a < 3; ++a) kernel.half_force[l][a] = 0.5 * m_force[a] * double(1 << l);
    }
    kernel.level_of = m_level_of;
    kernel.voxel_of = m_voxel_of;
    kernel.rho = Kokkos::View<double*>("karman::rho", n);
    kernel.u = Kokkos::View<double**, Kokkos::LayoutLeft>("karman::u", n, 3);
    const Kokkos::DefaultExecutionSpace space;
    for_each("karman::refined_moments", VoxelRange{0, n}, space, kernel);
    compat::fence(space, "karman::refined_moments");
    return {kernel.rho, kernel.u};
  }
  double local_mass() override { return total_density(moments()); }

  std::array<double, 3> body_force() override { return m_step->wall_force(); }
  std::size_t wall_links() const override { return m_step->wall_links(); }
  std::size_t immersed_markers() const override { return 0; }

  OwnedBox owned_box() const override {
    OwnedBox box = m_box;
    box.local_voxels = stored_voxels();
    return box;
  }
  GridCounts grid_counts() const override {
    GridCounts counts;
    counts.fluid_voxels = m_fluid_leaf_voxels;
    for (int l = 0; l < m_levels.levels(); ++l) counts.blocks += std::int64_t(m_levels.leaves(l).size());
    return counts;
  }
  /// Two lattices a level over every stored voxel (leaves, the overlap blocks the coalescence
  /// reads, halos), and the two kept states of the voxels next to the jumps.
  std::size_t population_bytes() const override {
    std::size_t voxels = 0;
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (m_grid->empty(l)) continue;
      voxels += 2 * (std::size_t(m_grid->level(l).voxel_count()) + std::size_t(m_step->kept_voxels(l)));
    }
    return voxels * std::size_t(L::Q) * sizeof(T);
  }
  std::size_t bytes_per_update() const override { return 2 * L::Q * sizeof(T); }
  int populations() const override { return L::Q; }
  std::string description() const override {
    return std::string(L::name) + "/" + VariantName<T>::value + "/soa/" + m_collision + "/ab/refined-" +
           std::to_string(m_levels.levels()) + "-levels/" + std::string(name(m_schedule)) + "/" +
           std::string(name(m_explosion)) + "-explosion";
  }
  int population_size() const override { return int(sizeof(T)); }
  bool populations_complete() const override { return true; }

  /// Every finest voxel's leaf populations in box order, post-collision, lattice order.
  void save_populations(std::byte* out) const override {
    const std::vector<PopulationHost> host = host_populations();
    const std::size_t record = std::size_t(L::Q) * sizeof(T);
    for (index_t k = 0; k < m_box.size(); ++k) {
      const auto& f = host[m_host_level[std::size_t(k)]];
      const index_t v = m_host_voxel[std::size_t(k)];
      T values[L::Q];
      for (int i = 0; i < L::Q; ++i) values[i] = f(v, i);
      std::memcpy(out + std::size_t(k) * record, values, record);
    }
  }

  /// Reads each owned leaf voxel's populations from its first finest voxel of `in`
  /// (save_populations' order); the overlap blocks' voxels, which no pull reads, become zero. The
  /// halo blocks are then exchanged (collective on several ranks).
  void load_populations(const std::byte* in, std::int64_t steps) override {
    const std::size_t record = std::size_t(L::Q) * sizeof(T);
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (m_grid->empty(l)) continue;
      auto host = karman::create_mirror_view(m_step->populations(l));
      karman::deep_copy(host, m_step->populations(l));
      const BlockRange owned = m_grid->level(l).owned_blocks();
      for (index_t v = index_t(owned.begin) * shape::voxels; v < index_t(owned.end) * shape::voxels; ++v) {
        T values[L::Q] = {};
        if (m_grid->leaf(l, v)) std::memcpy(values, in + std::size_t(first_finest_voxel(l, v)) * record, record);
        for (int i = 0; i < L::Q; ++i) host(v, i) = values[i];
      }
      karman::deep_copy(m_step->populations(l), host);
    }
    m_step->exchange_halos();
    m_steps = steps;
  }

  /// Every finest voxel's leaf flag word (the leaf's level's, cell_flags.hpp), in box order.
  void save_flags(flag_t* out) const override {
    std::vector<Kokkos::View<const flag_t*, Kokkos::HostSpace>> host(std::size_t(m_grid->levels()));
    for (int l = 0; l < m_grid->levels(); ++l)
      if (!m_grid->empty(l))
        host[std::size_t(l)] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m_step->flags(l));
    for (index_t k = 0; k < m_box.size(); ++k)
      out[k] = host[m_host_level[std::size_t(k)]](std::size_t(m_host_voxel[std::size_t(k)]));
  }

  bool uses_mpi() const override { return m_step->halos() && m_step->halos()->between_ranks(); }
  RankCommStats comm_stats() const override {
    if (uses_mpi()) return m_step->halos()->stats();
    RankCommStats none;
    none.rank = m_rank;
    return none;
  }
  bool gpu_aware() const override { return m_step->halos() && m_step->halos()->gpu_aware(); }
  void reset_comm_stats() override {
    if (m_step->halos()) m_step->halos()->reset_counters();
  }

  /// The levels and their grid (for tests and per-level figures).
  const RefinedLevels<Dim>& levels() const { return m_levels; }
  const grid_type& grid() const { return *m_grid; }
  const step_type& step() const { return *m_step; }

 private:
  using PopulationHost = typename RefinedField<T, MemorySpace>::host_mirror_type;

  void refuse_what_is_not_refined(const SolverSetup& setup) const {
    const auto refuse = [](const std::string& what) {
      throw Error("karman::lbm::RefinedSolver: " + what + " does not run on a refined grid yet");
    };
    if (setup.variant.pattern.name() != "ab") refuse("the " + setup.variant.pattern.name() + " pattern (ab does)");
    if (setup.force_field) refuse("a per-voxel force field");
    if (!setup.immersed_body.empty()) refuse("an immersed body");
    if (setup.curved_wall.id >= 0 && setup.ranks > 1) refuse("a curved wall on several ranks");
    const Extents& finest = m_levels.extents(0);
    if (finest.nx != setup.global.nx || finest.ny != setup.global.ny || finest.nz != setup.global.nz) {
      throw Error("karman::lbm::RefinedSolver: the finest level holds " + std::to_string(finest.nx) + "x" +
                  std::to_string(finest.ny) + "x" + std::to_string(finest.nz) + " voxels, the setup's box " +
                  std::to_string(setup.global.nx) + "x" + std::to_string(setup.global.ny) + "x" +
                  std::to_string(setup.global.nz));
    }
  }

  /// The finest voxel whose kind voxel x of level l takes: the one it covers on the box's side where
  /// it touches one, else its first. A voxel at a side so takes an inlet or outlet lying along the
  /// side (the case's open boundaries are its box's first or last plane of voxels).
  std::array<int, 3> representative_finest_voxel(int l, const std::array<int, 3>& x) const {
    std::array<int, 3> at{x[0] << l, x[1] << l, x[2] << l};
    for (int a = 0; a < Dim; ++a) {
      const int n = m_box.global.extent(a);
      if (((x[std::size_t(a)] + 1) << l) >= n) at[std::size_t(a)] = n - 1;
    }
    return at;
  }

  /// The finest level's voxel at finest coordinates x, wrapped along the periodic axes, when it is a
  /// stored leaf voxel there; -1 when x lies past a closed side or on a coarser level.
  index_t finest_voxel_at(const std::array<int, 3>& at) const {
    const auto wrapped = refined_source(m_levels, 0, at, {0, 0, 0});
    if (!wrapped) return -1;
    const std::array<int, 3>& x = *wrapped;
    const block_index_t b = m_grid->block_at(0, {x[0] / B, x[1] / B, Dim == 3 ? x[2] / B : 0});
    if (b == absent_block) return -1;
    const index_t v = index_t(b) * shape::voxels + shape::local_index(x[0] % B, x[1] % B, Dim == 3 ? x[2] % B : 0);
    return m_grid->leaf(0, v) ? v : -1;
  }

  /// The cut links of setup.curved_wall's body on the finest level (curved_wall.hpp, as
  /// build_wall_links makes them on a slab), each fluid leaf voxel next to the body pulling the
  /// populations its solid voxels reflect; the interpolation's order lowered where the voxels it
  /// reads beyond x_f are not fluid voxels of the finest level.
  std::vector<WallLink> finest_wall_links(const SolverSetup& setup) const {
    const CurvedWall& wall = setup.curved_wall;
    std::vector<WallLink> links;
    if (wall.id < 0 || !setup.geometry) return links;
    const int order = wall_link_order(setup, "karman::lbm::RefinedSolver");
    const auto spec_at = [&](const std::array<int, 3>& x) { return setup.geometry(x[0], x[1], x[2]); };
    const auto fluid_at = [&](std::array<int, 3> x) -> index_t {
      const index_t v = finest_voxel_at(x);
      return v >= 0 && spec_at(m_grid->voxel_coordinates(0, v)).kind != CellKind::solid ? v : -1;
    };
    const std::vector<std::array<int, 3>> velocities = velocity_set<L>();
    const BlockRange owned = m_grid->level(0).owned_blocks();
    for (index_t v = index_t(owned.begin) * shape::voxels; v < index_t(owned.end) * shape::voxels; ++v) {
      if (!m_grid->leaf(0, v)) continue;
      const std::array<int, 3> x = m_grid->voxel_coordinates(0, v);
      if (spec_at(x).kind == CellKind::solid) continue;
      for (int i = 0; i < L::Q; ++i) {
        const std::array<int, 3>& c = velocities[std::size_t(i)];
        const index_t solid = finest_voxel_at({x[0] - c[0], x[1] - c[1], x[2] - c[2]});
        if (solid < 0) continue;
        const CellSpec source = spec_at(m_grid->voxel_coordinates(0, solid));
        if (source.kind != CellKind::solid || source.id != wall.id) continue;
        links.push_back(cut_link(v, solid, i, wall.fraction(x[0], x[1], x[2], -c[0], -c[1], -c[2]),
                                 fluid_at({x[0] + c[0], x[1] + c[1], x[2] + c[2]}),
                                 fluid_at({x[0] + 2 * c[0], x[1] + 2 * c[1], x[2] + 2 * c[2]}), order, x,
                                 "karman::lbm::RefinedSolver"));
      }
    }
    return links;
  }

  /// The owned box index of the first finest voxel level l's voxel v covers.
  index_t first_finest_voxel(int l, index_t v) const {
    const std::array<int, 3> x = m_grid->voxel_coordinates(l, v);
    return m_box.extents.index((x[0] << l) - m_box.begin[0], (x[1] << l) - m_box.begin[1],
                               (x[2] << l) - m_box.begin[2]);
  }

  /// Which owned leaf voxel covers each finest voxel of the owned box (host and device tables),
  /// checking that a coarser leaf covers finest voxels of one kind and id.
  void map_finest_voxels(const SolverSetup& setup) {
    const index_t n = m_box.size();
    m_host_level.assign(std::size_t(n), 0);
    m_host_voxel.assign(std::size_t(n), -1);
    Kokkos::View<std::uint8_t*, Kokkos::HostSpace> level_of("karman::refined_level_of", std::size_t(n));
    Kokkos::View<index_t*, Kokkos::HostSpace> voxel_of("karman::refined_voxel_of", std::size_t(n));
    const auto spec_at = [&](int x, int y, int z) { return setup.geometry ? setup.geometry(x, y, z) : CellSpec{}; };
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (m_grid->empty(l)) continue;
      const int span = 1 << l;
      const BlockRange owned = m_grid->level(l).owned_blocks();
      for (index_t v = index_t(owned.begin) * shape::voxels; v < index_t(owned.end) * shape::voxels; ++v) {
        if (!m_grid->leaf(l, v)) continue;
        const std::array<int, 3> x = m_grid->voxel_coordinates(l, v);
        const std::array<int, 3> first{x[0] << l, x[1] << l, x[2] << l};
        const std::array<int, 3> at = representative_finest_voxel(l, x);
        const CellSpec spec = spec_at(at[0], at[1], at[2]);
        const bool open = is_open_boundary(spec.kind);
        if (spec.kind != CellKind::solid) ++m_fluid_leaf_voxels;
        for (int dz = 0; dz < (Dim == 3 ? span : 1); ++dz) {
          for (int dy = 0; dy < span; ++dy) {
            for (int dx = 0; dx < span; ++dx) {
              const int fx = first[0] + dx, fy = first[1] + dy, fz = first[2] + dz;
              const CellSpec here = l == 0 ? spec : spec_at(fx, fy, fz);
              if (l > 0 && here.kind == CellKind::solid && here.id == setup.curved_wall.id) {
                refuse_curved(l, x, setup.curved_wall.id);
              }
              const bool same = here.kind == spec.kind && here.id == spec.id;
              if (!same && !(open && here.kind == CellKind::fluid)) refuse_mixed(l, x, at, {fx, fy, fz});
              const index_t k = m_box.extents.index(fx - m_box.begin[0], fy - m_box.begin[1], fz - m_box.begin[2]);
              m_host_level[std::size_t(k)] = std::uint8_t(l);
              m_host_voxel[std::size_t(k)] = v;
              level_of(std::size_t(k)) =
                  spec.kind == CellKind::solid ? CompositeMoments<L, T, MemorySpace>::wall : std::uint8_t(l);
              voxel_of(std::size_t(k)) = v;
            }
          }
        }
      }
    }
    for (index_t k = 0; k < n; ++k) {
      if (m_host_voxel[std::size_t(k)] < 0) {
        throw Error("karman::lbm::RefinedSolver: finest voxel " + std::to_string(k) + " lies in no leaf (a bug)");
      }
    }
    m_level_of = Kokkos::create_mirror_view_and_copy(MemorySpace(), level_of);
    m_voxel_of = Kokkos::create_mirror_view_and_copy(MemorySpace(), voxel_of);
  }

  [[noreturn]] static void refuse_curved(int l, const std::array<int, 3>& x, int id) {
    throw Error("karman::lbm::RefinedSolver: level " + std::to_string(l) + " voxel (" + std::to_string(x[0]) + ", " +
                std::to_string(x[1]) + ", " + std::to_string(x[2]) +
                ") covers voxels of the curved body (boundary id " + std::to_string(id) +
                "), which must lie on the finest level, a block away from its jumps; refine "
                "around all of it");
  }

  [[noreturn]] static void refuse_mixed(int l, const std::array<int, 3>& x, const std::array<int, 3>& first,
                                        const std::array<int, 3>& other) {
    const auto text = [](const std::array<int, 3>& p) {
      return "(" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[2]) + ")";
    };
    throw Error("karman::lbm::RefinedSolver: level " + std::to_string(l) + " voxel " + text(x) +
                " covers finest voxels of different kinds or boundary ids (" + text(first) + " and " + text(other) +
                "): walls must lie on the finest level (refine closer to them); an inlet or outlet may cover fluid");
  }

  /// Every leaf voxel (halos included) at the equilibrium of setup.initial at its first finest
  /// voxel (rest at rho = 1 without one), walls included; the overlap blocks zero.
  void initialize(const SolverSetup& setup) {
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (m_grid->empty(l)) continue;
      auto host = karman::create_mirror_view(m_step->populations(l));
      for (index_t v = 0; v < m_grid->level(l).voxel_count(); ++v) {
        FlowState state;
        if (setup.initial && m_grid->leaf(l, v)) {
          const std::array<int, 3> x = m_grid->voxel_coordinates(l, v);
          state = setup.initial(x[0] << l, x[1] << l, x[2] << l);
        }
        const double u[3] = {state.u[0], state.u[1], state.u[2]};
        for (int i = 0; i < L::Q; ++i) host(v, i) = m_grid->leaf(l, v) ? T(equilibrium<L>(i, state.rho, u)) : T(0);
      }
      karman::deep_copy(m_step->populations(l), host);
    }
  }

  std::vector<PopulationHost> host_populations() const {
    std::vector<PopulationHost> host(std::size_t(m_grid->levels()));
    for (int l = 0; l < m_grid->levels(); ++l) {
      if (m_grid->empty(l)) continue;
      host[std::size_t(l)] = karman::create_mirror_view(m_step->populations(l));
      karman::deep_copy(host[std::size_t(l)], m_step->populations(l));
    }
    return host;
  }

  index_t stored_voxels() const {
    index_t n = 0;
    for (int l = 0; l < m_grid->levels(); ++l)
      if (!m_grid->empty(l)) n += m_grid->level(l).voxel_count();
    return n;
  }

  RefinedLevels<Dim> m_levels;
  OwnedBox m_box;  ///< this rank's slab of the finest box (local_voxels unset)
  int m_rank = 0;
  std::string m_collision;
  RefinedSchedule m_schedule = RefinedSchedule::disaggregated;
  Explosion m_explosion = Explosion::constant;
  RefinedGeometry m_geometry;
  std::unique_ptr<grid_type> m_grid;
  std::unique_ptr<step_type> m_step;
  double m_force[3] = {0, 0, 0};  ///< the body force on the finest level
  std::vector<std::uint8_t> m_host_level;
  std::vector<index_t> m_host_voxel;
  Kokkos::View<std::uint8_t*, MemorySpace> m_level_of;
  Kokkos::View<index_t*, MemorySpace> m_voxel_of;
  index_t m_fluid_leaf_voxels = 0;
  std::int64_t m_steps = 0;
};

namespace detail {

/// The refined grid's builder for the fold of variant_fold.hpp: every collision; the pattern and
/// the forces are the solver's to accept or refuse.
template <class L, class T>
struct RefinedSolverBuilder {
  using result_type = std::unique_ptr<FlowSolver>;
  template <class Collision>
  static constexpr bool compiles = true;
  template <class Collision, Pattern P>
  static constexpr bool force_field_kernels = false;

  const Refinement* refinement;

  template <class Collision, Pattern P, bool Forced, bool ForceField>
  result_type build(const SolverSetup& setup) const {
    constexpr int edge = sparse_block_edge<L::D>;
    return std::make_unique<RefinedSolver<L, T, Collision, edge>>(setup, refined_levels<L::D>(setup, *refinement, edge),
                                                                  refinement->schedule, refinement->explosion);
  }
  std::string force_field_refusal(const SolverSetup& setup) const {
    return "karman: a per-voxel force field (" + force_field_source(setup) + ") does not run on a refined grid yet";
  }
};

/// Definition of the entry point declared in refined_solver_factory.hpp.
template <class L, class T>
std::unique_ptr<FlowSolver> make_refined_solver_variant(const SolverSetup& setup, const Refinement& refinement) {
  const RefinedSolverBuilder<L, T> builder{&refinement};
  return fold_collision<L>(setup, builder, [&](auto collision) {
    return fold_pattern_and_forces<tag_type<decltype(collision)>>(setup, builder);
  });
}

}  // namespace detail

}  // namespace karman::lbm
