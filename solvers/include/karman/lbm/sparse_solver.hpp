#pragma once
/// \file sparse_solver.hpp
/// The LBM on a block-sparse grid (Meneghin & Mahmoud §IV, Table II): the
/// dense solver's stream-collide kernel (stream_collide.hpp) on BlockNeighbours, boundary
/// blocks run with flags and boundary code, non-boundary blocks with neither. Every voxel
/// computes exactly what it computes on the dense box, so both grids give bitwise the same
/// fields on the same case. Under MPI the ranks divide the block planes along the slowest axis
/// (BlockSparseGrid's groups) and exchange their shared blocks through the dense solver's halo
/// plans and exchanger, the interior blocks computed while the messages fly (Meneghin &
/// Mahmoud §III–IV, Fig. 4b), with the same bits as on one rank.

#include <karman/core/error.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/sparse/block_neighbours.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/core/sparse/for_each_block.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/halo_plans.hpp>
#include <karman/lbm/owned_box_copies.hpp>
#include <karman/lbm/setup_transport.hpp>
#include <karman/lbm/solver_state.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/sparse_sample.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>
#include <karman/lbm/stream_collide.hpp>
#include <karman/lbm/variant_fold.hpp>
#include <karman/lbm/variants.hpp>
#include <karman/lbm/velocity_set.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace karman::lbm {

/// The population layout a registry layout means on a block-sparse grid: CSoA is chunked by
/// the block (Grid::block_layout: a block's Q x B^D values are one chunk), others unchanged.
template <class Layout, class Grid>
struct SparseLayout {
  using type = Layout;
};
template <int Alpha, class Grid>
struct SparseLayout<CSoA<Alpha>, Grid> {
  using type = typename Grid::block_layout;
};

/// A rank's part of a block-sparse grid and how its halo blocks are filled: all block planes and
/// no exchanger on one rank; under MPI the planes a SlabPartition of the block lattice gives the
/// rank, the halo plans of that partition per step kind and an MPI exchanger.
template <class FieldType>
struct SparseSlab {
  OwnedBlockPlanes owned;
  std::array<HaloPlan, 3> plans;                        ///< by StepKind
  std::unique_ptr<HaloExchanger<FieldType>> exchanger;  ///< null on one rank
};

/// Saves, or restores outside one layer of voxels, components [begin, end) of the voxels
/// [first, ...) it is launched over: see SparseSolverCore::keep_inner_layers.
template <class FieldType, class SavedView, class Shape>
struct InnerLayerCopy {
  FieldType field;
  SavedView saved;
  index_t first = 0;   ///< first voxel of the group
  index_t offset = 0;  ///< where the group's values start in `saved`
  int begin = 0, end = 0;
  int facing = 0;  ///< local coordinate along the slab axis of the layer left alone on restore
  bool restore = false;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const index_t base = offset + (v - first) * (end - begin) - begin;
    if (!restore) {
      for (int q = begin; q < end; ++q) saved(base + q) = field(v, q);
    } else if (Shape::local_coordinate(int(v % Shape::voxels), Shape::dim - 1) != facing) {
      for (int q = begin; q < end; ++q) field(v, q) = saved(base + q);
    }
  }
};

/// Position in the rank's owned box (x fastest; OwnedBox) of stored voxel v of a block-sparse
/// grid, or -1 for the voxels of partly filled blocks past the box's side. The owned box is the
/// rank's block planes as voxel planes along the slab axis, whole along the others.
template <class GridView>
struct OwnedBoxPosition {
  GridView grid;
  Extents box;          ///< the owned box's extents
  int axis = 0;         ///< the slab axis
  int first_plane = 0;  ///< the owned box's first voxel plane along it

  KOKKOS_INLINE_FUNCTION index_t operator()(index_t v) const {
    int c[3];
    for (int a = 0; a < 3; ++a) c[a] = grid.coordinate(v, a);
    c[axis] -= first_plane;
    if (c[0] >= box.nx || c[1] >= box.ny || c[2] >= box.nz || c[axis] < 0) return -1;
    return box.index(c[0], c[1], c[2]);
  }
};

/// The block-sparse grid a solver of lattice L keeps, and its population field.
template <class L, class MemorySpace>
using SparseGrid = BlockSparseGrid<L::D, sparse_block_edge<L::D>, MemorySpace>;
template <class L, class Prec, class Layout, class MemorySpace>
using SparseField =
    Field<storage_t<Prec>, typename SparseLayout<Layout, SparseGrid<L, MemorySpace>>::type, MemorySpace>;

/// Everything of a block-sparse solver that does not depend on its collision, pattern or
/// force (runtime values here), instantiated once per (lattice, precision, layout) for every
/// variant a unit compiles (as SolverCore for the dense box). SparseSolver derives from it and
/// supplies update(), the launch of its stream-collide kernels. What every grid keeps (lattices,
/// flags, step count, moments, checkpoints and flags in the order of owned_box(): the rank's
/// block planes as voxel planes, cut at the box's side, zeros where no block is stored) is
/// SolverState's, so that a run loop, its output and its checkpoints serve every grid; this class
/// adds the grid, its blocks' step and the exchange of its shared blocks.
template <class L, class Prec, class Layout, class MemorySpace>
class SparseSolverCore : public SolverState<L, Prec, Layout, SparseField<L, Prec, Layout, MemorySpace>,
                                            OwnedBoxPosition<typename SparseGrid<L, MemorySpace>::view_type>,
                                            SparseSolverCore<L, Prec, Layout, MemorySpace>> {
  using Base = SolverState<L, Prec, Layout, SparseField<L, Prec, Layout, MemorySpace>,
                           OwnedBoxPosition<typename SparseGrid<L, MemorySpace>::view_type>, SparseSolverCore>;
  friend Base;

 protected:
  using Base::m_exchanger;
  using Base::m_f;
  using Base::m_pattern;
  using Base::m_plans;
  using typename Base::storage_type;
  using typename Base::T;

 public:
  using grid_type = SparseGrid<L, MemorySpace>;
  /// The neighbour accessor of step kind K: step tables for the AB pull, whose unrolled loop
  /// folds them into registers; side bits for both AA steps, whose odd step's boundary kernels
  /// would otherwise index the tables at run time and spill them (NeighbourSteps).
  template <StepKind K>
  using neighbours_type = BlockNeighbours<L::D, sparse_block_edge<L::D>, MemorySpace,
                                          K == StepKind::ab_pull ? NeighbourSteps::tables : NeighbourSteps::side_bits>;
  using layout_type = typename SparseLayout<Layout, grid_type>::type;
  using typename Base::execution_space;
  using typename Base::field_type;

  /// No body: the cases of this grid (porous media) have walls of voxels only.
  std::array<double, 3> body_force() override { return {0, 0, 0}; }
  std::size_t wall_links() const override { return 0; }
  std::size_t immersed_markers() const override { return 0; }

  /// The rank's block planes as voxel planes along the slab axis (z in 3D, y in 2D), cut at
  /// the box's side, the whole box along the others.
  OwnedBox owned_box() const override {
    constexpr int axis = grid_type::slab_axis, B = sparse_block_edge<L::D>;
    const Extents& global = m_grid.extents();
    OwnedBox box;
    box.global = global;
    box.begin[axis] = m_owned_planes.begin * B;
    const int end = std::min((m_owned_planes.begin + m_owned_planes.count) * B, global.extent(axis));
    box.extents = global;
    (axis == 2 ? box.extents.nz : box.extents.ny) = end - box.begin[axis];
    box.grid[axis] = m_ranks;
    box.local_voxels = m_grid.voxel_count();
    return box;
  }

  /// Every stored block on one rank, all but the halo blocks on several; the boundary blocks
  /// are those of Meneghin & Mahmoud Table II.
  GridCounts grid_counts() const override {
    return {this->m_fluid_voxels, m_grid.owned_blocks().size(), m_grid.boundary_block_count()};
  }

  /// The grid (for tests and output).
  const grid_type& grid() const { return m_grid; }

 protected:
  /// Builds the grid of `setup`'s geometry with `grouping` on the block planes of `slab`, its
  /// flags and lattices, and sets the initial equilibrium. Throws karman::Error for a box the
  /// grid refuses (a periodic extent that is not a multiple of the block edge, no fluid voxel).
  SparseSolverCore(const SolverSetup& setup, SparseSlab<field_type> slab, BlockGrouping grouping, Pattern pattern,
                   bool forced, const char* collision)
      : SparseSolverCore(setup, SparseSample(setup, velocity_set<L>(), sampled_planes(slab.owned)), std::move(slab),
                         grouping, pattern, forced, collision) {}

  /// Which owned blocks a launch covers: the shared groups (next to the halos) or the interior.
  enum class BlockPart { shared, interior };

  /// Runs the variant's kernels of one step of kind k over `part` (SparseSolver::update).
  virtual void update(StepKind k, BlockPart part) const = 0;

  template <StepKind K, class Feat>
  PopulationAccess<L, Prec, layout_type, MemorySpace, K, Feat, neighbours_type<K>> access() const {
    return {m_f[0], m_pattern == Pattern::ab ? m_f[1] : m_f[0], this->m_flags, this->m_boundaries, m_grid.view()};
  }

  /// The groups of the grid's group_table() that hold shared blocks (none on one rank).
  const std::vector<int>& shared_groups() const { return m_shared_groups; }

  /// Whether a wall of the case moves (walls_move()): the boundary kernels then add Ladd's term.
  bool moving_walls() const { return m_walls_move; }

  grid_type m_grid;

  /// "/sparse-" and the grid's grouping, after the pattern in description().
  std::string grid_description() const override { return "/sparse-" + std::string(name(m_grid.grouping())); }

 private:
  SparseSolverCore(const SolverSetup& setup, const SparseSample& sample, SparseSlab<field_type>&& slab,
                   BlockGrouping grouping, Pattern pattern, bool forced, const char* collision)
      : Base(setup, pattern, forced, collision, std::move(slab.exchanger)),
        m_grid(sparse_grid<grid_type>("karman::sparse_grid", sample, slab.owned, grouping)),
        m_owned_planes(slab.owned),
        m_ranks(setup.ranks) {
    m_plans = std::move(slab.plans);
    const BlockRange owned = m_grid.owned_blocks();
    this->m_owned = {index_t(owned.begin) * grid_type::block_voxels, index_t(owned.end) * grid_type::block_voxels};
    const OwnedBox box = owned_box();
    this->m_owned_position = {m_grid.view(), box.extents, grid_type::slab_axis, box.begin[grid_type::slab_axis]};
    const GroupTable groups = m_grid.group_table();
    for (const int side : {-1, +1}) {
      const int g = groups.find(GroupRole::shared, NeighbourStep::along(grid_type::slab_axis, side));
      if (g >= 0) m_shared_groups.push_back(g);
    }
    m_f[0] = field_type("karman::sparse_populations_a", groups, L::Q);
    if (m_pattern == Pattern::ab) m_f[1] = field_type("karman::sparse_populations_b", groups, L::Q);
    if (m_exchanger && m_pattern == Pattern::aa) {
      index_t saved = 0;
      for (const HaloTransfer& t : m_plans[std::size_t(StepKind::aa_even)].receives) {
        saved += groups.range(t.group).size() * (t.components.end - t.components.begin);
      }
      m_saved_layers = Kokkos::View<storage_type*, MemorySpace>("karman::sparse_saved_layers", saved);
    }
    initialize(sample);
  }

  /// The voxel planes this rank's grid asks its sample about: its block planes and a halo block
  /// plane on each side (all planes on one rank; SparseSample keeps the whole axis then).
  static VoxelPlanes sampled_planes(OwnedBlockPlanes owned) {
    constexpr int B = sparse_block_edge<L::D>;
    return {(owned.begin - 1) * B, (owned.count + 2) * B};
  }

  /// One step of kind k (SolverState::advance).
  void run_step(StepKind k, bool) { step(k); }

  /// What moments read as the next step would: the halo blocks (the next step's exchange, which
  /// it repeats unchanged).
  void prepare_step_reads(StepKind k) {
    if (!m_exchanger) return;
    begin_exchange(k);
    end_exchange(k);
  }

  /// One step of kind k: the exchange of the halo blocks it reads, then the kernels over the
  /// owned blocks, the interior queued before waiting for the messages when overlapping (as the
  /// dense SolverCore::step). Every kernel and the exchanger's copies run on the default
  /// instance, which orders them; a slot is read and written by one voxel within a step, so the
  /// order of the parts does not change the result.
  void step(StepKind k) {
    if (!m_exchanger) {
      update(k, BlockPart::shared);
      update(k, BlockPart::interior);
      return;
    }
    begin_exchange(k);
    if (this->m_overlap) update(k, BlockPart::interior);
    end_exchange(k);
    update(k, BlockPart::shared);
    if (!this->m_overlap) update(k, BlockPart::interior);
  }

  void begin_exchange(StepKind k) {
    if (k == StepKind::aa_even) keep_inner_layers(false);
    m_exchanger->start(m_f[0], m_plans[std::size_t(k)]);
  }

  void end_exchange(StepKind k) {
    m_exchanger->finish();
    if (k == StepKind::aa_even) keep_inner_layers(true);
  }

  /// Before an AA even step the shared blocks come back from the neighbours' halo blocks
  /// (HaloPlans::aa_even), whole, but a neighbour's odd step wrote only into the layer of
  /// voxels facing it: the other layers of its copy hold what this rank sent before that odd
  /// step, which this rank's own odd step has since overwritten. So the received components
  /// are saved before the exchange (`restore` false) and put back after it (true) everywhere
  /// but in the facing layer, which keeps exactly the neighbour's pushes, as a dense slab's
  /// one-plane halo does.
  void keep_inner_layers(bool restore) const {
    using Shape = typename grid_type::shape_type;
    const execution_space space;
    index_t offset = 0;
    for (const HaloTransfer& t : m_plans[std::size_t(StepKind::aa_even)].receives) {
      const BlockRange blocks = m_grid.group_blocks(t.group);
      const VoxelRange voxels{index_t(blocks.begin) * Shape::voxels, index_t(blocks.end) * Shape::voxels};
      const int facing = t.neighbour.d[std::size_t(grid_type::slab_axis)] > 0 ? Shape::edge - 1 : 0;
      for_each(
          "karman::sparse_keep_inner_layers", voxels, space,
          InnerLayerCopy<field_type, Kokkos::View<storage_type*, MemorySpace>, Shape>{
              m_f[0], m_saved_layers, voxels.begin, offset, t.components.begin, t.components.end, facing, restore});
      offset += voxels.size() * (t.components.end - t.components.begin);
    }
  }

  /// The kernel features SolverState's moments fold may ask for: no per-voxel force field.
  static constexpr bool has_force_field = false;
  /// The owned box is cut at the box's side and leaves out unstored blocks: always reordered.
  bool owned_in_box_order() const { return false; }

  /// The Moments kernel of a step of kind K over the owned blocks (SolverState::moments).
  template <StepKind K, class Feat>
  void launch_moments(MomentFields& out) const {
    Moments<L, Prec, layout_type, MemorySpace, K, Feat, neighbours_type<K>> kernel{access<K, Feat>(),   out.rho, out.u,
                                                                                   this->m_owned.begin, {},      {}};
    for (int d = 0; d < 3; ++d) kernel.force[d] = this->m_force[d];
    const execution_space space;
    for_each("karman::sparse_moments", m_grid, m_grid.owned_blocks(), space, kernel);
    compat::fence(space, "karman::sparse_moments_done");
  }

  /// Flags of every stored voxel (the voxels of partly filled blocks past the box's side, and
  /// inactive ones, as a wall of id 0 like the dense box's halo planes) and the equilibrium of
  /// the initial state, stored where the first step reads it (see Solver::initialize).
  void initialize(const SparseSample& sample) {
    const auto n = std::size_t(m_grid.voxel_count());
    std::vector<flag_t> flag_words(n, outside_flag);
    std::vector<double> rho(n, 1.0), u(3 * n, 0.0);
    const Extents& box = m_grid.extents();
    const BlockRange owned = m_grid.owned_blocks();
    constexpr int block_voxels = grid_type::block_voxels;
    for (block_index_t b = 0; b < m_grid.block_count(); ++b) {
      const std::array<int, 3> origin = m_grid.origin(b);
      for (int l = 0; l < block_voxels; ++l) {
        int g[3];
        for (int a = 0; a < 3; ++a) g[a] = origin[a] + grid_type::shape_type::local_coordinate(l, a);
        if (g[0] >= box.nx || g[1] >= box.ny || g[2] >= box.nz) continue;
        const std::size_t v = std::size_t(b) * block_voxels + std::size_t(l);
        const FlowState s = sample.initial(g[0], g[1], g[2]);
        rho[v] = s.rho;
        for (int d = 0; d < 3; ++d) u[3 * v + std::size_t(d)] = s.u[d];
        if (!((m_grid.mask(b) >> l) & 1u)) continue;
        flag_words[v] = sample.flag(g[0], g[1], g[2]);
        if (b >= owned.begin && b < owned.end && flags::kind(flag_words[v]) != CellKind::solid) ++this->m_fluid_voxels;
      }
    }
    // GPUs: the AB update writes the solid voxels that share a sector with fluid ones
    // (StreamCollide::writes_transaction_fillers). CPUs read a whole cache line before writing
    // any part of it, and gain nothing.
    if (m_pattern == Pattern::ab && BackendTraits<execution_space>::is_gpu) {
      mark_transaction_fillers(flag_words,
                               std::size_t(BackendTraits<execution_space>::transaction_bytes) / sizeof(storage_type));
    }
    bool closed_side = false;  // past it stand walls of id 0 (outside_flag)
    for (int a = 0; a < L::D; ++a) closed_side = closed_side || !m_grid.periodic(a);
    m_walls_move = walls_move(flag_words, this->m_boundaries, closed_side);
    this->upload_flags(flag_words);
    Base::initialize(rho, u, execution_space());
  }

  OwnedBlockPlanes m_owned_planes;                          ///< the block planes this rank computes
  std::vector<int> m_shared_groups;                         ///< shared_groups()
  int m_ranks;                                              ///< ranks sharing the grid's block planes
  Kokkos::View<storage_type*, MemorySpace> m_saved_layers;  ///< keep_inner_layers' copy (AA under MPI)
  bool m_walls_move = true;  ///< walls_move(): whether the boundary kernels add Ladd's term
};

/// One compiled variant on a block-sparse grid of one rank: lattice L, precision Prec
/// (float or double), collision, pattern, and `Forced` for the Guo force terms.
template <class L, class Prec, class Layout, class Collision, Pattern P, bool Forced,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class SparseSolver final : public SparseSolverCore<L, Prec, Layout, MemorySpace> {
  using Core = SparseSolverCore<L, Prec, Layout, MemorySpace>;
  using typename Core::T;
  /// Kernel features of non-boundary blocks (no flag word, no boundary code) and of boundary
  /// blocks, in two builds: with Ladd's moving-wall term, and for cases whose walls are all at
  /// rest (porous media), which read no wall's flag word.
  using BulkFeatures = Features<false, Forced>;
  using BoundaryFeatures = Features<true, Forced>;
  using RestingBoundaryFeatures = Features<true, Forced, false, false>;
  /// Launch bounds of the boundary kernels: 4 blocks of 256 threads an SM (64 registers) where
  /// a voxel's populations fit, FP32 D3Q19 and D2Q9. Boundary blocks are latency-bound (half
  /// their lanes are solid voxels), and the occupancy pays: H200, 256^3, random porosity 0.3,
  /// +5.7 % (docs/performance.md). D3Q27 and FP64 would spill, and keep the default.
  using BoundaryLaunch = Kokkos::LaunchBounds<256, (sizeof(T) == 4 && L::Q <= 19) ? 4 : 1>;

 public:
  using typename Core::execution_space;
  using typename Core::field_type;
  using typename Core::grid_type;
  using typename Core::layout_type;
  template <StepKind K>
  using neighbours_type = typename Core::template neighbours_type<K>;

  /// Builds the grid of `setup`'s geometry with `grouping` on the block planes of `slab`, its
  /// flags and lattices, and sets the initial equilibrium (SparseSolverCore).
  SparseSolver(const SolverSetup& setup, SparseSlab<field_type> slab, BlockGrouping grouping)
      : Core(setup, std::move(slab), grouping, P, Forced, Collision::name),
        m_rates(collision_rates<Collision, T>(setup.relaxation)) {}

 private:
  template <StepKind K, class Feat>
  StreamCollide<L, Prec, layout_type, MemorySpace, Collision, K, Feat, neighbours_type<K>> kernel() const {
    StreamCollide<L, Prec, layout_type, MemorySpace, Collision, K, Feat, neighbours_type<K>> k{
        this->template access<K, Feat>(), m_rates, {}, {}};
    for (int d = 0; d < 3; ++d) k.force[d] = this->m_force[d];
    return k;
  }

  using typename Core::BlockPart;

  /// Interior: boundary blocks with flags, non-boundary blocks without, on one instance in that
  /// order. Shared: both shared groups with flags (they hold blocks of either kind). As on the
  /// dense box every slot is read and written by one voxel within a step (stream_collide.hpp),
  /// so the order does not change the result. The boundary kernels are those of the case's
  /// walls: moving, or all at rest.
  template <StepKind K>
  void launch(BlockPart part) const {
    if (this->moving_walls()) {
      launch<K, BoundaryFeatures>(part);
    } else {
      launch<K, RestingBoundaryFeatures>(part);
    }
  }
  template <StepKind K, class Boundary>
  void launch(BlockPart part) const {
    const execution_space space;
    const grid_type& grid = this->m_grid;
    if (part == BlockPart::shared) {
      // The shared groups next to the halos; one rank has none.
      for (const int g : this->shared_groups()) {
        for_each<BoundaryLaunch>("karman::sparse_stream_collide_shared", grid, grid.group_blocks(g), space,
                                 kernel<K, Boundary>());
      }
      return;
    }
    for_each<BoundaryLaunch>("karman::sparse_stream_collide_boundary", grid, BlockSet::boundary, space,
                             kernel<K, Boundary>());
    for_each<StreamCollideLaunch>("karman::sparse_stream_collide_non_boundary", grid, BlockSet::non_boundary, space,
                                  kernel<K, BulkFeatures>());
  }

  /// Only the step kinds of pattern P are compiled: AB pulls, AA alternates odd and even.
  void update(StepKind k, BlockPart part) const override {
    if constexpr (P == Pattern::ab) {
      launch<StepKind::ab_pull>(part);
    } else if (k == StepKind::aa_odd) {
      launch<StepKind::aa_odd>(part);
    } else {
      launch<StepKind::aa_even>(part);
    }
  }

  CollisionRates<T> m_rates;
};

namespace detail {

/// The block planes of `setup`'s rank and, under MPI with several ranks, the halo plans and
/// exchanger of the SlabDecomposition of the block lattice, each of its planes a plane of blocks.
template <class L, class FieldType, class Grid>
SparseSlab<FieldType> make_sparse_slab(const SolverSetup& setup) {
  const Extents lattice = Grid::block_lattice(setup.global);
  constexpr auto axis = std::size_t(Grid::slab_axis);
  // One rank wraps its block lattice itself (BlockNeighbours), even one block plane thick.
  if (setup.ranks == 1) return {{0, lattice.extent(int(axis))}, {}, nullptr};
  // Every kernel and the exchanger's copies share the default instance, which orders them.
  auto part = comm::slab_and_exchanger<FieldType>(lattice, setup.periodic[axis], transport_of(setup),
                                                  typename FieldType::execution_space());
  SparseSlab<FieldType> slab{{part.partition.owned_begin(), part.partition.owned_planes()}, {}, nullptr};
  for (StepKind k : {StepKind::ab_pull, StepKind::aa_odd, StepKind::aa_even}) {
    slab.plans[std::size_t(k)] = HaloPlans<L>::of(k, part.partition);
  }
  slab.exchanger = std::move(part.exchanger);
  return slab;
}

/// The block-sparse solvers of one (lattice, precision, layout): every collision the lattice
/// defines, both patterns, no per-voxel force field (variant_fold.hpp).
template <class L, class T, class Layout>
struct SparseSolverBuilder {
  using result_type = std::unique_ptr<FlowSolver>;
  template <class Collision>
  static constexpr bool compiles = true;
  template <class Collision, Pattern P>
  static constexpr bool force_field_kernels = false;

  BlockGrouping grouping;

  template <class Collision, Pattern P, bool Forced, bool ForceField>
  result_type build(const SolverSetup& setup) const {
    static_assert(!ForceField);
    using Core = SparseSolverCore<L, T, Layout, Kokkos::DefaultExecutionSpace::memory_space>;
    return std::make_unique<SparseSolver<L, T, Layout, Collision, P, Forced>>(
        setup, make_sparse_slab<L, typename Core::field_type, typename Core::grid_type>(setup), grouping);
  }
  std::string force_field_refusal(const SolverSetup& setup) const {
    return "karman: a per-voxel force field (" + force_field_source(setup) +
           ") runs on slabs only, not on the block-sparse grid";
  }
};

/// Definition of the per-collision entry point declared in sparse_solver_factory.hpp: every
/// pattern, and the Guo force terms only for a case with a body force.
template <class L, class T, class Layout, class Collision>
std::unique_ptr<FlowSolver> make_sparse_collision_variant(const SolverSetup& setup, BlockGrouping grouping) {
  static_assert(Collision::template defined_for<L>,
                "make_sparse_collision_variant: the collision is not defined for L");
  return fold_pattern_and_forces<Collision>(setup, SparseSolverBuilder<L, T, Layout>{grouping});
}

/// Definition of the entry point declared in sparse_solver_factory.hpp; each generated
/// translation unit instantiates it for one (lattice, precision, layout). It only chooses the
/// collision: every collision of variants.hpp defined for the lattice has its
/// make_sparse_collision_variant instantiated (the others are refused).
template <class L, class T, class Layout>
std::unique_ptr<FlowSolver> make_sparse_solver_variant(const SolverSetup& setup, BlockGrouping grouping) {
  return fold_collision<L>(setup, SparseSolverBuilder<L, T, Layout>{grouping}, [&](auto collision) {
    return make_sparse_collision_variant<L, T, Layout, tag_type<decltype(collision)>>(setup, grouping);
  });
}

}  // namespace detail
}  // namespace karman::lbm
