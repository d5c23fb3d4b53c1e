// The LBM on the block-sparse grid runs the dense solver's kernel, so the same
// case gives bitwise the same fields on both grids: a cavity with a moving lid, channels with
// pressure and velocity inlets/outlets and with a body force, and a periodic sphere pack with
// bounce-back on its solid voxels; D2Q9, D3Q19 and D3Q27, AB and AA after odd and even step
// counts, memory and bitmask grouping (Meneghin & Mahmoud Table II), SoA and CSoA.
#include "../common/expect_error.hpp"
#include "lbm_test_support.hpp"

#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/sparse_memory.hpp>
#include <karman/lbm/sparse_sample.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

/// A case to run on both grids, and whether its sparse grid must hold non-boundary blocks.
struct NamedSetup {
  std::string name;
  SolverSetup setup;
  bool has_bulk_blocks = true;
};

/// The first of double and float compiled for both grids with `lattice`, or "" for none.
std::string precision_for(const std::string& lattice) {
  for (const char* precision : {"double", "float"}) {
    bool all = true;
    for (const char* layout : {"soa", "csoa"})
      all = all && is_compiled(lattice, precision, layout) && is_sparse_compiled(lattice, precision, layout);
    if (all) return precision;
  }
  return "";
}

std::vector<NamedSetup> cases_for(int dim, const Variant& v) {
  std::vector<NamedSetup> out;
  cases::CavityParams cavity;
  cavity.dim = dim;
  cavity.n = dim == 3 ? 14 : 22;  // blocks away from every wall run the non-boundary kernel
  cavity.reynolds = 10;
  out.push_back({"cavity", cases::cavity_setup(cavity, v)});

  cases::ChannelParams channel;
  channel.dim = dim;
  channel.height = dim == 3 ? 10 : 22;
  channel.length = dim == 3 ? 18 : 38;  // not a multiple of the block edge: padded blocks at the outlet
  channel.depth = 8;
  channel.drive = cases::ChannelDrive::pressure_drop;
  NamedSetup pressure{"pressure channel", cases::channel_setup(channel, v)};
  pressure.setup.variant.collision = "trt";
  out.push_back(pressure);

  // The inlet as a velocity boundary: id 1 prescribes u instead of rho.
  NamedSetup velocity = pressure;
  velocity.name = "velocity inlet channel";
  velocity.setup.boundaries.values[1].u[0] = 0.03;
  velocity.setup.geometry = [geometry = pressure.setup.geometry](int x, int y, int z) {
    CellSpec c = geometry(x, y, z);
    if (c.kind == CellKind::pressure_boundary && c.id == 1) c.kind = CellKind::velocity_boundary;
    return c;
  };
  out.push_back(velocity);

  channel.drive = cases::ChannelDrive::body_force;
  channel.length = dim == 3 ? 16 : 32;  // periodic along x: a multiple of the block edge
  out.push_back({"forced channel", cases::channel_setup(channel, v)});

  // A periodic random pack driven by a body force: bounce-back on the spheres, solid blocks
  // away from the pore space not stored.
  const Extents box = dim == 3 ? Extents{16, 16, 16} : Extents{32, 32, 1};
  geometry::RandomPackOptions pack_options;
  pack_options.porosity = 0.45;
  pack_options.radius_min = 3;
  pack_options.radius_max = 5;
  pack_options.seed = 13;
  const auto pack = std::make_shared<geometry::SpherePack>(geometry::random_sphere_pack(box, pack_options));
  SolverSetup s;
  s.variant = v;
  s.variant.collision = "trt";
  s.global = box;
  s.periodic = {true, true, true};
  s.relaxation.omega = 1.2;
  s.relaxation.force[0] = 2e-5;
  s.relaxation.force[1] = 5e-6;
  s.geometry = [pack](int x, int y, int z) {
    return pack->image.is_solid(x, y, z) ? CellSpec{CellKind::solid, 0} : CellSpec{};
  };
  out.push_back({"sphere pack", s, false});
  return out;
}

/// Expects the sparse solver's moments at every voxel of the box to equal the dense solver's
/// bitwise; voxels the sparse grid does not store (zeros in its moments) must be walls on the
/// dense box.
void expect_same_fields(const lbm::test::HostMoments& dense, FlowSolver& sparse, const Extents& box,
                        const std::string& what) {
  ASSERT_EQ(sparse.owned_box().size(), box.size()) << what << ": one rank owns the whole box";
  const auto m = sparse.moments();
  const auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  double max_speed = 0;
  for (int z = 0; z < box.nz; ++z) {
    for (int y = 0; y < box.ny; ++y) {
      for (int x = 0; x < box.nx; ++x) {
        const auto k = std::size_t(box.index(x, y, z));
        const std::string where =
            what + " at (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
        ASSERT_EQ(rho(k), dense.rho[k]) << where << " rho";
        for (int d = 0; d < 3; ++d) {
          ASSERT_EQ(u(k, d), dense.u[3 * k + std::size_t(d)]) << where << " u" << d;
          max_speed = std::fmax(max_speed, std::fabs(u(k, d)));
        }
      }
    }
  }
  ASSERT_GT(max_speed, 1e-7) << what << ": the flow must move for the comparison to mean anything";
}

TEST(SparseSolver, SameFieldsAsDenseBitwise) {
  int compared = 0;
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}, std::pair{3, "d3q27"}}) {
    const std::string precision = precision_for(lattice);
    if (precision.empty()) continue;
    for (NamedSetup& c : cases_for(dim, Variant{lattice, precision, "soa", "bgk", "ab"})) {
      for (const char* pattern : {"ab", "aa"}) {
        for (int steps : {8, 9}) {
          SolverSetup s = c.setup;
          s.variant.pattern = pattern;
          s.variant.layout = "soa";
          const lbm::test::HostMoments dense = lbm::test::run(s, steps);
          for (BlockGrouping grouping : {BlockGrouping::memory, BlockGrouping::bitmask}) {
            for (const char* layout : {"soa", "csoa"}) {
              s.variant.layout = layout;
              const auto sparse = make_sparse_solver(s, grouping);
              const std::string what = c.name + " " + sparse->description() + " steps " + std::to_string(steps);
              const GridCounts counts = sparse->grid_counts();
              ASSERT_GT(counts.boundary_blocks, 0) << what;
              if (c.has_bulk_blocks) {
                ASSERT_LT(counts.boundary_blocks, counts.blocks) << what;
              }
              sparse->advance(steps);
              expect_same_fields(dense, *sparse, s.global, what);
              if (HasFatalFailure()) return;
              ++compared;
            }
          }
        }
      }
    }
  }
  ASSERT_GT(compared, 0) << "no lattice is compiled in float or double with soa and csoa for both grids";
}

// The FlowSolver face of the block-sparse solver is the dense solvers': its moments, flags and
// populations in owned-box order equal the dense solver's on the same case (bitwise), so a run
// loop, its field output and its checkpoints serve both grids (issue 50).
TEST(SparseSolver, FlowSolverFaceEqualsTheDenseSolvers) {
  int compared = 0;
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}}) {
    const std::string precision = precision_for(lattice);
    if (precision.empty()) continue;
    for (NamedSetup& c : cases_for(dim, Variant{lattice, precision, "soa", "bgk", "ab"})) {
      for (const char* pattern : {"ab", "aa"}) {
        SolverSetup s = c.setup;
        s.variant.pattern = pattern;
        const auto dense = make_solver(s);
        s.variant.layout = "csoa";
        const auto sparse = make_sparse_solver(s, BlockGrouping::memory);
        dense->advance(8);
        sparse->advance(8);
        const std::string what = c.name + " " + sparse->description();
        const OwnedBox db = dense->owned_box(), sb = sparse->owned_box();
        ASSERT_EQ(sb.size(), db.size()) << what;
        ASSERT_TRUE(sb.is_slab()) << what;
        for (int a = 0; a < 3; ++a) ASSERT_EQ(sb.begin[std::size_t(a)], db.begin[std::size_t(a)]) << what;
        // Both grids update the same fluid voxels; only the sparse one counts blocks.
        const GridCounts dc = dense->grid_counts(), sc = sparse->grid_counts();
        EXPECT_EQ(sc.fluid_voxels, dc.fluid_voxels) << what;
        EXPECT_LT(dc.fluid_voxels, db.size()) << what << ": the cavity has walls";
        EXPECT_EQ(dc.blocks, 0) << what;
        EXPECT_GT(sc.blocks, 0) << what;

        const lbm::test::HostMoments dm = lbm::test::host_moments(*dense), sm = lbm::test::host_moments(*sparse);
        ASSERT_EQ(sm.rho, dm.rho) << what << ": density in owned-box order";
        ASSERT_EQ(sm.u, dm.u) << what << ": velocity in owned-box order";
        // The same voxels, summed in block order and in box order: equal to rounding.
        const double box_mass = lbm::total_density(sparse->moments());
        EXPECT_NEAR(sparse->local_mass(), box_mass, 1e-12 * box_mass) << what;

        const auto voxels = std::size_t(db.size());
        std::vector<flag_t> dense_flags(voxels), sparse_flags(voxels);
        dense->save_flags(dense_flags.data());
        sparse->save_flags(sparse_flags.data());
        const auto bytes = std::size_t(sparse->population_size()) * std::size_t(sparse->populations());
        ASSERT_EQ(bytes, std::size_t(dense->population_size()) * std::size_t(dense->populations())) << what;
        std::vector<std::byte> dense_populations(voxels * bytes), sparse_populations(voxels * bytes);
        dense->save_populations(dense_populations.data());
        sparse->save_populations(sparse_populations.data());
        std::size_t fluid = 0;
        for (std::size_t k = 0; k < voxels; ++k) {
          ASSERT_EQ(flags::kind(sparse_flags[k]), flags::kind(dense_flags[k])) << what << ": kind of voxel " << k;
          if (flags::kind(dense_flags[k]) == CellKind::solid) continue;
          ASSERT_EQ(std::memcmp(&sparse_populations[k * bytes], &dense_populations[k * bytes], bytes), 0)
              << what << ": populations of fluid voxel " << k;
          ++fluid;
        }
        ASSERT_GT(fluid, 0u) << what;
        EXPECT_EQ(index_t(fluid), dc.fluid_voxels) << what;
        ++compared;
      }
    }
  }
  ASSERT_GT(compared, 0) << "no lattice is compiled in float or double with soa and csoa for both grids";
}

// A block-sparse solver loaded with another's saved populations continues bitwise as the one
// that saved them (AB after any step, AA after an even one; an odd AA count is refused): what
// a checkpoint of a porous run needs.
TEST(SparseSolver, SavedPopulationsContinueBitwise) {
  int compared = 0;
  for (auto [dim, lattice] : {std::pair{2, "d2q9"}, std::pair{3, "d3q19"}}) {
    const std::string precision = precision_for(lattice);
    if (precision.empty()) continue;
    for (NamedSetup& c : cases_for(dim, Variant{lattice, precision, "csoa", "bgk", "ab"})) {
      for (const char* pattern : {"ab", "aa"}) {
        SolverSetup s = c.setup;
        s.variant.pattern = pattern;
        const auto first = make_sparse_solver(s, BlockGrouping::memory);
        const std::string what = c.name + " " + first->description();
        first->advance(6);
        const auto voxels = std::size_t(first->owned_box().size());
        std::vector<std::byte> saved(voxels * std::size_t(first->population_size()) *
                                     std::size_t(first->populations()));
        first->save_populations(saved.data());

        const auto second = make_sparse_solver(s, BlockGrouping::memory);
        second->load_populations(saved.data(), 6);
        ASSERT_EQ(second->steps(), 6) << what;
        first->advance(5);
        second->advance(5);
        const lbm::test::HostMoments a = lbm::test::host_moments(*first), b = lbm::test::host_moments(*second);
        ASSERT_EQ(b.rho, a.rho) << what;
        ASSERT_EQ(b.u, a.u) << what;
        if (std::string(pattern) == "aa") {
          EXPECT_FALSE(first->populations_complete()) << what << ": after 11 AA steps";
          EXPECT_THROW(first->save_populations(saved.data()), Error) << what;
          EXPECT_THROW(second->load_populations(saved.data(), 7), Error) << what;
        }
        ++compared;
      }
    }
  }
  ASSERT_GT(compared, 0) << "no lattice is compiled in float or double with soa and csoa for both grids";
}

// The boundary kernels are built for walls at rest unless a wall the kernels bounce off moves:
// a solid voxel of a boundary id with a velocity, or the id-0 wall past a closed side. An inlet's
// velocity is no wall's.
TEST(SparseSolver, WallsMoveOnlyForSolidVoxelsOfAMovingBoundary) {
  BoundaryTable table;
  table.values[1].u[0] = 0.05;  // a velocity inlet's
  const flag_t wall = flags::make(CellKind::solid, 2, 0);
  const flag_t inlet = flags::make(CellKind::velocity_boundary, 1, 0);
  const std::vector<flag_t> words{flags::make(CellKind::fluid, 0, 0), inlet, wall};
  EXPECT_FALSE(walls_move(words, table, false));
  EXPECT_FALSE(walls_move(words, table, true)) << "the id-0 wall is at rest";
  table.values[2].u[1] = -0.01;
  EXPECT_TRUE(walls_move(words, table, false)) << "solid voxels of id 2 move";
  table.values[2].u[1] = 0;
  table.values[0].u[2] = 0.1;
  EXPECT_FALSE(walls_move(words, table, false)) << "no voxel of id 0 and no closed side";
  EXPECT_TRUE(walls_move(words, table, true)) << "the wall past a closed side moves";
}

// Solid voxels sharing an aligned group (a GPU sector of each population) with a fluid voxel
// are marked so the AB update writes them too; groups without fluid and fluid words are left.
TEST(SparseSolver, TransactionFillersShareAGroupWithFluid) {
  const flag_t solid = flags::make(CellKind::solid, 3, 0);
  const flag_t fluid = flags::make(CellKind::fluid, 0, 0b110);
  std::vector<flag_t> words(12, solid);
  words[5] = fluid;   // second group of 4
  words[10] = fluid;  // third group, which ends the vector
  std::vector<flag_t> marked = words;
  mark_transaction_fillers(marked, 4);
  for (std::size_t v = 0; v < words.size(); ++v) {
    const bool fills = v >= 4 && v != 5 && v != 10;
    EXPECT_EQ(flags::fills_transaction(marked[v]), fills) << "voxel " << v;
    EXPECT_EQ(flags::kind(marked[v]), flags::kind(words[v])) << "voxel " << v;
    EXPECT_EQ(flags::id(marked[v]), flags::id(words[v])) << "voxel " << v;
    if (!fills) {
      EXPECT_EQ(marked[v], words[v]) << "voxel " << v;
    }
  }
  std::vector<flag_t> unmarked = words;
  mark_transaction_fillers(unmarked, 0);
  EXPECT_EQ(unmarked, words);
}

// The grid stores the pore space and its wall layer only: fully solid blocks of a pack are
// left out, and the voxels updated are the fluid ones.
/// The velocities of D2Q9 (dim 2) or D3Q19 (dim 3).
std::vector<std::array<int, 3>> velocities(int dim) {
  std::vector<std::array<int, 3>> c;
  for (int z = dim == 3 ? -1 : 0; z <= (dim == 3 ? 1 : 0); ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x)
        if (dim == 2 || x * x + y * y + z * z <= 2) c.push_back({x, y, z});
  return c;
}

// A rank's sample keeps the block planes it is asked about and answers there as the whole box's
// (walled, periodic and inlet/outlet cases; windows at either end, across a periodic wrap and
// inside), and refuses a voxel past them instead of answering from memory it does not hold.
TEST(SparseSolver, SampleOfSomePlanesAnswersAsTheWholeBox) {
  for (const int dim : {2, 3}) {
    const Variant v{dim == 3 ? "d3q19" : "d2q9", "double", "soa", "bgk", "ab"};
    for (const NamedSetup& c : cases_for(dim, v)) {
      const Extents& box = c.setup.global;
      const int axis = box.slab_axis(), n = box.extent(axis);
      const SparseSample whole(c.setup, velocities(dim));
      for (const VoxelPlanes planes :
           {VoxelPlanes{-4, 8}, VoxelPlanes{0, 4}, VoxelPlanes{n / 2 - 2, 4}, VoxelPlanes{n - 4, 8}}) {
        SCOPED_TRACE(c.name + " " + std::to_string(dim) + "D, planes " + std::to_string(planes.begin) + "+" +
                     std::to_string(planes.count));
        const SparseSample part(c.setup, velocities(dim), planes);
        for (int w = 0; w < planes.count; ++w) {
          int p = planes.begin + w;
          if (p < 0 || p >= n) {
            if (!c.setup.periodic[std::size_t(axis)]) continue;
            p = (p + n) % n;
          }
          for (int b = 0; b < (axis == 2 ? box.ny : 1); ++b) {
            for (int x = 0; x < box.nx; ++x) {
              const int y = axis == 2 ? b : p, z = axis == 2 ? p : 0;
              ASSERT_EQ(part.active(x, y, z), whole.active(x, y, z)) << x << "," << y << "," << z;
              ASSERT_EQ(part.flag(x, y, z), whole.flag(x, y, z)) << x << "," << y << "," << z;
            }
          }
        }
      }
    }
  }
}

// A sample keeps the block planes holding the voxel planes it is asked about and one block plane
// on each side, and refuses a voxel past them instead of answering from memory it does not hold;
// its blocks are those of the planes it keeps, and hold no byte a voxel.
TEST(SparseSolver, SampleKeepsItsBlockPlanesOnly) {
  for (const int dim : {2, 3}) {
    SCOPED_TRACE(std::to_string(dim) + "D");
    const int B = SparseSample::block_edge(dim);
    SolverSetup s;
    s.global = dim == 3 ? Extents{8, 8, 16 * B} : Extents{16, 16 * B, 1};
    s.periodic = {true, true, dim == 3};
    const int axis = s.global.slab_axis();
    const auto at = [&](int plane) { return std::array<int, 3>{1, axis == 1 ? plane : 1, axis == 2 ? plane : 0}; };
    // Voxel planes 6B + 1 .. 8B - 2: block planes 6 and 7, kept 5 to 8.
    const SparseSample part(s, velocities(dim), {6 * B + 1, 2 * B - 2});
    for (const int plane : {5 * B, 9 * B - 1}) {
      const auto c = at(plane);
      EXPECT_TRUE(part.active(c[0], c[1], c[2])) << "plane " << plane;
    }
    for (const int plane : {5 * B - 1, 9 * B, 0, 16 * B - 1}) {
      const auto c = at(plane);
      EXPECT_THROW(part.active(c[0], c[1], c[2]), std::logic_error) << "plane " << plane;
    }
    // An all-fluid box: every block of the four kept planes, full.
    const std::size_t per_plane = std::size_t(s.global.nx / B) * std::size_t(dim == 3 ? s.global.ny / B : 1);
    ASSERT_EQ(part.block_count(), 4 * per_plane);
    for (std::size_t k = 0; k < part.block_count(); ++k) {
      EXPECT_EQ(part.active_mask(k), ~std::uint64_t(0));
      EXPECT_EQ(part.solid_mask(k), std::uint64_t(0));
      EXPECT_GE(part.block_at(k)[std::size_t(axis)], 5);
      EXPECT_LE(part.block_at(k)[std::size_t(axis)], 8);
    }
    EXPECT_LT(part.host_bytes(), std::size_t(64) * part.block_count());
  }
}

TEST(SparseSolver, StoresPoreSpaceOnly) {
  const std::string precision = precision_for("d3q19");
  if (precision.empty()) GTEST_SKIP() << "d3q19 is not compiled in float or double with soa and csoa";
  const Extents box{32, 32, 32};
  geometry::RandomPackOptions pack_options;
  pack_options.porosity = 0.2;
  pack_options.radius_min = 4;
  pack_options.radius_max = 6;
  const auto pack = geometry::random_sphere_pack(box, pack_options);
  SolverSetup s;
  s.variant = Variant{"d3q19", precision, "csoa", "bgk", "aa"};
  s.global = box;
  s.periodic = {true, true, true};
  s.geometry = [&pack](int x, int y, int z) {
    return pack.image.is_solid(x, y, z) ? CellSpec{CellKind::solid, 0} : CellSpec{};
  };
  const auto sparse = make_sparse_solver(s);
  const index_t stored = sparse->owned_box().local_voxels;
  EXPECT_EQ(sparse->grid_counts().fluid_voxels, pack.image.fluid_voxels());
  EXPECT_LT(stored, box.size());
  // AA: one lattice of Q populations per stored voxel.
  EXPECT_EQ(sparse->population_bytes(), std::size_t(stored) * 19 * std::size_t(precision_bytes(precision)));
}

/// Live and peak bytes of the allocations in the default memory space, as Kokkos Tools see them
/// (the hooks a memory-high-water tool uses), while an instance lives.
class AllocationTracker {
 public:
  AllocationTracker() {
    state() = State{};
    Kokkos::Tools::Experimental::set_allocate_data_callback(&on_allocate);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&on_deallocate);
  }
  ~AllocationTracker() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
  /// Bytes allocated and not freed since construction or the last reset_peak().
  static std::int64_t live() { return state().live; }
  /// The most live() was since construction or the last reset_peak().
  static std::int64_t peak() { return state().peak; }
  /// Starts a new peak from the current live bytes.
  static void reset_peak() { state().peak = state().live; }
  /// Allocations counted (zero means the hooks did not fire).
  static int count() { return state().count; }

 private:
  struct State {
    std::int64_t live = 0, peak = 0;
    int count = 0;
    std::map<const void*, std::int64_t> sizes;
  };
  static State& state() {
    static State s;
    return s;
  }
  static bool counted(const Kokkos_Profiling_SpaceHandle& handle) {
    return std::strcmp(handle.name, Kokkos::DefaultExecutionSpace::memory_space::name()) == 0;
  }
  static void on_allocate(Kokkos_Profiling_SpaceHandle handle, const char*, const void* ptr, std::uint64_t size) {
    if (!counted(handle)) return;
    State& s = state();
    s.sizes[ptr] = std::int64_t(size);
    s.live += std::int64_t(size);
    s.peak = std::max(s.peak, s.live);
    ++s.count;
  }
  static void on_deallocate(Kokkos_Profiling_SpaceHandle handle, const char*, const void* ptr, std::uint64_t) {
    if (!counted(handle)) return;
    State& s = state();
    const auto it = s.sizes.find(ptr);
    if (it == s.sizes.end()) return;  // allocated before the tracker started
    s.live -= it->second;
    s.sizes.erase(it);
  }
};

// The estimate a run is refused by (sparse_memory.hpp) must be what the solver then allocates:
// counted by Kokkos Tools' allocation hooks, the solver's persistent memory, the peak of its
// construction and a moments() call (the stored voxels' moments, gathered into the box's) each
// match the estimate within a small margin (the fields' group-table handles, a few hundred bytes). Pores with walls, a
// channel with pressure boundaries and padded blocks, 2D and 3D, AB and AA.
TEST(SparseSolver, MemoryEstimateEqualsAllocation) {
  int checked = 0;
  for (const char* lattice : {"d3q19", "d2q9"}) {
    // The first sparse variant of the lattice compiled in (the estimate is the same code for all).
    std::string precision, layout;
    for (const char* p : {"double", "float"})
      for (const char* l : {"csoa", "soa"})
        if (precision.empty() && is_sparse_compiled(lattice, p, l)) {
          precision = p;
          layout = l;
        }
    if (precision.empty()) continue;
    for (const char* pattern : {"ab", "aa"}) {
      const Variant v{lattice, precision, layout, "bgk", pattern};
      for (const NamedSetup& c : cases_for(lattice == std::string("d2q9") ? 2 : 3, v)) {
        SCOPED_TRACE(std::string(lattice) + " " + pattern + " " + c.name);
        const SparseMemoryEstimate est = estimate_sparse_memory(c.setup);
        const auto margin = [&](double bytes) { return 0.001 * bytes + 4096.0; };
        std::unique_ptr<FlowSolver> solver;
        {
          AllocationTracker tracker;
          solver = make_sparse_solver(c.setup);
          ASSERT_GT(AllocationTracker::count(), 0) << "the Kokkos Tools allocation hooks did not fire";
          const GridCounts counts = solver->grid_counts();
          EXPECT_EQ(est.blocks, counts.blocks);
          EXPECT_EQ(est.voxels, solver->owned_box().local_voxels);
          EXPECT_EQ(est.fluid_voxels, counts.fluid_voxels);
          EXPECT_EQ(est.population_bytes, solver->population_bytes());
          EXPECT_NEAR(double(AllocationTracker::live()), double(est.persistent_bytes()),
                      margin(double(est.persistent_bytes())));
          EXPECT_NEAR(double(AllocationTracker::peak()), double(est.persistent_bytes() + est.initial_state_bytes),
                      margin(double(est.peak_bytes())));
          EXPECT_LE(double(AllocationTracker::peak()), double(est.peak_bytes()) + margin(double(est.peak_bytes())));
          const std::int64_t before = AllocationTracker::live();
          AllocationTracker::reset_peak();
          const MomentFields m = solver->moments();
          const double box_moments = double(m.rho.span() + m.u.span()) * sizeof(double);
          EXPECT_EQ(box_moments, double(c.setup.global.size()) * 4 * sizeof(double));
          EXPECT_NEAR(double(AllocationTracker::peak() - before), double(est.moments_bytes) + box_moments,
                      margin(double(est.moments_bytes)));
        }
        EXPECT_GT(est.bytes_per_fluid_voxel(), 0.0);
        ++checked;
      }
    }
  }
  ASSERT_GT(checked, 0) << "no block-sparse variant of d3q19 or d2q9 is compiled";
}

TEST(SparseSolver, BadInputRefused) {
  cases::CavityParams cavity;
  cavity.n = 14;
  SolverSetup s = cases::cavity_setup(cavity, Variant{"d2q9", "float", "soa", "bgk", "ab"});
  s.ranks = 2;
  karman::test::expect_error([&] { make_sparse_solver(s); }, {"ranks", "2"});
  s.ranks = 1;
  s.variant.precision = "fp16s";
  karman::test::expect_error([&] { make_sparse_solver(s); }, {"block-sparse solver d2q9/fp16s/soa", "not compiled"});
  s.variant.precision = "float";
  s.variant.layout = "aos";
  karman::test::expect_error([&] { make_sparse_solver(s); }, {"d2q9/float/aos", "not compiled"});
  cases::ChannelParams channel;
  channel.length = 20;  // periodic along x, not a multiple of the 2D block edge 8
  // Only in builds with d2q9 on both grids (a variant subset may lack it).
  if (!precision_for("d2q9").empty()) {
    s = cases::channel_setup(channel, Variant{"d2q9", precision_for("d2q9"), "soa", "bgk", "ab"});
    karman::test::expect_error([&] { make_sparse_solver(s); }, {"periodic axis x", "20"});
    // The per-voxel force field's kernels are compiled for slabs only (variant_fold.hpp): the
    // block-sparse grid refuses it instead of running without it.
    s = cases::cavity_setup(cavity, Variant{"d2q9", precision_for("d2q9"), "soa", "bgk", "ab"});
    s.force_field = [](int, int, int) { return std::array<double, 3>{1e-6, 0, 0}; };
    karman::test::expect_error([&] { make_sparse_solver(s); }, {"force field (force_field)", "block-sparse"});
  }
}

}  // namespace
