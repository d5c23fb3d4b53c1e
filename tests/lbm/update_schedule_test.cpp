// The bulk/boundary split is a schedule: every owned non-solid voxel is updated exactly once
// per launch over the owned voxels, and once over the interior and shared groups together; the
// bulk kernel gets only voxels whose stencil holds no boundary, and every such voxel whose
// whole tile is bulk. Counted by running the solver's own schedule with counting functors in
// place of the stream-collide kernels.
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/layouts.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/solver.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;
using MemorySpace = Kokkos::DefaultExecutionSpace::memory_space;

/// Adds one to counts(v) for every voxel it is called on.
struct CountUpdates {
  Kokkos::View<int*, MemorySpace> counts;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const { Kokkos::atomic_add(&counts(v), 1); }
};

/// Counts the bulk kernel's updates and its fills of solid voxels' slots apart (a bulk kernel
/// that offers update_or_fill, as the AB pull without flag words does).
struct CountUpdatesAndFills {
  Kokkos::View<int*, MemorySpace> counts, fills;
  static constexpr bool fills_transactions = true;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const { Kokkos::atomic_add(&counts(v), 1); }
  KOKKOS_INLINE_FUNCTION void update_or_fill(index_t v, bool fill) const {
    Kokkos::atomic_add(fill ? &fills(v) : &counts(v), 1);
  }
};

struct Counts {
  std::vector<int> bulk, boundary, fills;
};

std::vector<int> to_host(const Kokkos::View<int*, MemorySpace>& view) {
  std::vector<int> out(view.extent(0));
  Kokkos::deep_copy(
      Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(out.data(), out.size()), view);
  return out;
}

/// Runs `schedule` over `ranges` with counting kernels, the boundary kernel on an instance of its
/// own as the overlapped step runs it; returns per-voxel counts of each kernel, and of the bulk
/// kernel's fills when `with_fills` (a bulk kernel that fills solid voxels' slots).
Counts count(const UpdateSchedule<MemorySpace>& schedule, index_t voxels, const std::vector<VoxelRange>& ranges,
             bool with_fills = false) {
  Kokkos::View<int*, MemorySpace> bulk("bulk", voxels), boundary("boundary", voxels), fills("fills", voxels);
  const auto spaces = compat::make_concurrent_instances<Kokkos::DefaultExecutionSpace>(2);
  for (const VoxelRange& r : ranges) {
    if (with_fills) {
      schedule.run("karman::test::count", r, spaces[0], spaces[1], CountUpdatesAndFills{bulk, fills},
                   CountUpdates{boundary});
    } else {
      schedule.run("karman::test::count", r, spaces[0], spaces[1], CountUpdates{bulk}, CountUpdates{boundary});
    }
  }
  for (const auto& space : spaces) space.fence();
  return {to_host(bulk), to_host(boundary), to_host(fills)};
}

/// Checks the counts of a launch over the owned voxels against the flag words, classified by
/// `schedule_tile` voxels (0: the backend's default).
template <class L>
void expect_each_voxel_once(const SolverSetup& setup, int schedule_tile, const std::string& what) {
  Solver<L, double, SoA, BGK, Pattern::ab, false> solver(setup, SlabPartition(setup.global), nullptr);
  const SlabPartition& part = solver.partition();
  // The tile the solver classifies by (update_schedule.hpp): the case's, else the backend's.
  const index_t tile = schedule_tile > 0
                           ? schedule_tile
                           : default_schedule_tile(int(sizeof(double)),
                                                   BackendTraits<Kokkos::DefaultExecutionSpace>::schedule_tile_bytes);
  const auto flag_words = build_flags(part, setup, velocity_set<L>());
  ASSERT_TRUE(solver.schedule().split()) << what;
  const VoxelRange owned = part.owned();
  const std::vector<std::vector<VoxelRange>> launches = {
      {owned},
      {part.group(part.interior_group()), part.group(part.shared_group(part.lower())),
       part.group(part.shared_group(part.upper()))}};
  for (const auto& ranges : launches) {
    const Counts c = count(solver.schedule(), part.local_size(), ranges);
    index_t bulk = 0, boundary = 0;
    for (index_t v = 0; v < part.local_size(); ++v) {
      const auto k = std::size_t(v);
      const bool is_owned = v >= owned.begin && v < owned.end;
      const bool solid = flags::kind(flag_words[k]) == CellKind::solid;
      ASSERT_EQ(c.bulk[k] + c.boundary[k], is_owned && !solid ? 1 : 0) << what << ": updates of voxel " << v;
      if (c.bulk[k] > 0) {
        ASSERT_TRUE(is_bulk(flag_words[k])) << what << ": boundary voxel " << v << " ran as bulk";
      }
      const index_t first = v / tile * tile;
      bool tile_bulk = true;
      for (index_t w = std::max(first, owned.begin); w < std::min(first + tile, owned.end); ++w)
        tile_bulk = tile_bulk && bulk_or_solid(flag_words[std::size_t(w)]);
      if (is_owned && tile_bulk && !solid) {
        ASSERT_EQ(c.bulk[k], 1) << what << ": bulk voxel " << v << " of an all-bulk tile";
      }
      bulk += c.bulk[k];
      boundary += c.boundary[k];
    }
    EXPECT_EQ(bulk, solver.schedule().bulk_voxels()) << what;
    EXPECT_EQ(boundary, solver.schedule().boundary_voxels()) << what;
    EXPECT_GT(bulk, 0) << what;
    EXPECT_GT(boundary, 0) << what;
  }
}

/// The check above with the backend's default tile and with tiles of 4 voxels (a GPU's default
/// for double, on a CPU).
template <class L>
void expect_each_voxel_once(const SolverSetup& setup, const std::string& what) {
  for (const int schedule_tile : {0, 4}) {
    SolverSetup tiled = setup;
    tiled.schedule_tile = schedule_tile;
    expect_each_voxel_once<L>(tiled, schedule_tile,
                              what + (schedule_tile > 0 ? ", tiles of " + std::to_string(schedule_tile) : ""));
  }
}

TEST(UpdateSchedule, CavityVoxelsUpdatedExactlyOnce) {
  cases::CavityParams p;
  p.reynolds = 10;
  p.dim = 2;
  p.n = 30;
  expect_each_voxel_once<D2Q9>(cases::cavity_setup(p, {}), "2D cavity");
  p.dim = 3;
  p.n = 20;
  expect_each_voxel_once<D3Q19>(cases::cavity_setup(p, Variant{"d3q19", "double", "soa", "bgk", "ab"}), "3D cavity");
}

TEST(UpdateSchedule, ChannelWithOpenBoundariesAndPeriodicAxis) {
  cases::ChannelParams p;
  p.dim = 3;
  p.height = 6;
  p.length = 24;
  p.depth = 5;
  p.drive = cases::ChannelDrive::pressure_drop;
  expect_each_voxel_once<D3Q27>(cases::channel_setup(p, Variant{"d3q27", "double", "soa", "bgk", "ab"}),
                                "3D pressure-driven channel");
}

/// In AB, every population that a wall at rest bounces is served by exactly one wall slot
/// (wall_slots.hpp) and its flag bit is clear, in AB and AA alike; the moving lid's are not.
TEST(WallSlots, ServeExactlyTheClearedBitsOfWallsAtRest) {
  cases::CavityParams p;
  p.reynolds = 10;
  p.dim = 3;
  p.n = 12;
  for (const char* pattern : {"ab", "aa"}) {
    const SolverSetup setup = cases::cavity_setup(p, Variant{"d3q19", "double", "soa", "bgk", pattern});
    const SlabPartition part(setup.global, 0, 1);
    const auto c = velocity_set<D3Q19>();
    const auto flag_words = build_flags(part, setup, c);
    const auto slots = build_wall_slots(part, setup, c);
    std::set<std::pair<index_t, int>> served;
    for (const WallSlot& s : slots) {
      const Extents& local = part.local();
      const index_t fluid =
          s.solid + c[s.direction][0] + local.nx * (c[s.direction][1] + index_t(local.ny) * c[s.direction][2]);
      EXPECT_EQ(flags::kind(flag_words[std::size_t(s.solid)]), CellKind::solid) << pattern;
      EXPECT_NE(flags::kind(flag_words[std::size_t(fluid)]), CellKind::solid) << pattern;
      EXPECT_FALSE(flags::blocked(flag_words[std::size_t(fluid)], s.direction)) << pattern;
      EXPECT_TRUE(served.insert({fluid, s.direction}).second) << pattern << ": a population served twice";
    }
    // Every population entering a fluid voxel from a solid one is either served or flagged,
    // and flagged only when its wall moves (the lid, the plane y = n + 1 of the walled box).
    const Extents& local = part.local();
    std::size_t from_solid = 0;
    for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
      const flag_t fl = flag_words[std::size_t(v)];
      if (flags::kind(fl) == CellKind::solid) continue;
      const int y = int(v / local.nx % local.ny);
      for (int i = 0; i < D3Q19::Q; ++i) {
        const index_t source = v - (c[i][0] + local.nx * (c[i][1] + index_t(local.ny) * c[i][2]));
        if (flags::kind(flag_words[std::size_t(source)]) != CellKind::solid) continue;
        ++from_solid;
        const bool lid = y - c[i][1] == p.n + 1;
        EXPECT_EQ(flags::blocked(fl, i), lid) << "voxel " << v << " population " << i;
        EXPECT_EQ(served.count({v, i}), lid ? 0u : 1u) << "voxel " << v << " population " << i;
      }
    }
    EXPECT_GT(from_solid, slots.size());
    EXPECT_GT(slots.size(), 0u);
  }
}

/// True when owned voxel v is a filler of tiles of `tile` voxels: solid, in a tile of `owned` whose
/// voxels are all bulk or solid and not all solid.
bool expected_filler(const std::vector<flag_t>& flag_words, const VoxelRange& owned, index_t tile, index_t v) {
  if (flags::kind(flag_words[std::size_t(v)]) != CellKind::solid) return false;
  const index_t first = v / tile * tile;
  bool all_bulk = true, any_fluid = false;
  for (index_t w = std::max(first, owned.begin); w < std::min(first + tile, owned.end); ++w) {
    all_bulk = all_bulk && bulk_or_solid(flag_words[std::size_t(w)]);
    any_fluid = any_fluid || flags::kind(flag_words[std::size_t(w)]) != CellKind::solid;
  }
  return all_bulk && any_fluid;
}

/// In the AB split the bulk kernel also fills the solid voxels of its tiles, each once and no
/// other voxel; without fill_solid_slots (AA) or fused it fills none. Every voxel is still updated
/// as without fills.
TEST(UpdateSchedule, FillersAreTheSolidVoxelsOfBulkTiles) {
  cases::CavityParams p;
  p.reynolds = 10;
  p.dim = 3;
  p.n = 12;
  const SolverSetup setup = cases::cavity_setup(p, Variant{"d3q19", "double", "soa", "bgk", "ab"});
  const SlabPartition part(setup.global, 0, 1);
  const auto flag_words = build_flags(part, setup, velocity_set<D3Q19>());
  const VoxelRange owned = part.owned();
  const int tile = 4;
  for (const auto& [mode, fill] :
       {std::pair{Schedule::split, true}, std::pair{Schedule::split, false}, std::pair{Schedule::fused, true}}) {
    const std::string what = std::string(mode == Schedule::split ? "split" : "fused") + (fill ? ", filling" : "");
    const UpdateSchedule<MemorySpace> schedule(flag_words, owned, tile, mode, fill);
    const Counts c = count(schedule, part.local_size(), {owned}, true);
    index_t fills = 0;
    for (index_t v = 0; v < part.local_size(); ++v) {
      const auto k = std::size_t(v);
      const bool is_owned = v >= owned.begin && v < owned.end;
      const bool solid = flags::kind(flag_words[k]) == CellKind::solid;
      const bool filler = fill && mode == Schedule::split && is_owned && expected_filler(flag_words, owned, tile, v);
      ASSERT_EQ(c.fills[k], filler ? 1 : 0) << what << ": fills of voxel " << v;
      // Fused, the flagged kernel runs every voxel (and returns at solid ones).
      const bool updated = is_owned && (!solid || mode == Schedule::fused);
      ASSERT_EQ(c.bulk[k] + c.boundary[k], updated ? 1 : 0) << what << ": updates of voxel " << v;
      fills += c.fills[k];
    }
    EXPECT_EQ(fills, schedule.filler_voxels()) << what;
    if (fill && mode == Schedule::split) {
      EXPECT_GT(fills, 0) << what;
    }
  }
}

/// The fills write the rest weights into a filler's slots, leave the slots that wall_slots.hpp
/// serves to it, and change no fluid value: a cavity with a non-uniform initial density (so that
/// a solid voxel's initial slots are not the rest weights) run split with fillers against the
/// fused schedule, which has none.
TEST(UpdateSchedule, FillersHoldTheRestWeightsAndLeaveTheFluidAlone) {
  cases::CavityParams p;
  p.reynolds = 10;
  p.dim = 3;
  p.n = 12;
  SolverSetup setup = cases::cavity_setup(p, Variant{"d3q19", "double", "soa", "bgk", "ab"});
  setup.initial = [](int x, int y, int z) {
    FlowState s;
    s.rho = 1.0 + 0.001 * (x + 2 * y + 3 * z);
    return s;
  };
  setup.schedule_tile = 4;
  using S = Solver<D3Q19, double, SoA, BGK, Pattern::ab, false>;
  std::vector<std::vector<double>> state;
  for (const Schedule mode : {Schedule::split, Schedule::fused}) {
    setup.schedule = mode;
    S solver(setup, SlabPartition(setup.global), nullptr);
    if (mode == Schedule::split) {
      ASSERT_GT(solver.schedule().filler_voxels(), 0);
    }
    solver.advance(3);
    std::vector<double> f(std::size_t(solver.partition().owned().size()) * D3Q19::Q);
    solver.save_populations(reinterpret_cast<std::byte*>(f.data()));
    state.push_back(f);
  }
  const SlabPartition part(setup.global, 0, 1);
  const auto flag_words = build_flags(part, setup, velocity_set<D3Q19>());
  std::set<std::pair<index_t, int>> served;
  for (const WallSlot& s : build_wall_slots(part, setup, velocity_set<D3Q19>())) served.insert({s.solid, s.direction});
  const VoxelRange owned = part.owned();
  index_t rest_slots = 0, changed = 0;
  for (index_t v = owned.begin; v < owned.end; ++v) {
    const bool filler = expected_filler(flag_words, owned, 4, v);
    for (int i = 0; i < D3Q19::Q; ++i) {
      const std::size_t k = std::size_t(v - owned.begin) * D3Q19::Q + std::size_t(i);
      if (flags::kind(flag_words[std::size_t(v)]) != CellKind::solid) {
        ASSERT_EQ(state[0][k], state[1][k]) << "fluid voxel " << v << " population " << i;
      } else if (filler && served.count({v, i}) == 0) {
        ASSERT_EQ(state[0][k], D3Q19::w(i)) << "filler " << v << " population " << i;
        ++rest_slots;
        changed += state[1][k] != D3Q19::w(i);
      }
    }
  }
  EXPECT_GT(rest_slots, 0);
  EXPECT_GT(changed, 0) << "the fused run's solid slots hold the rest weights too: the test would miss a fill";
}

TEST(UpdateSchedule, PeriodicBoxIsAllBulkWithoutAMask) {
  SolverSetup s;
  s.global = {6, 5, 1};
  s.periodic = {true, true, true};
  Solver<D2Q9, double, SoA, BGK, Pattern::ab, false> solver(s, SlabPartition(s.global), nullptr);
  EXPECT_FALSE(solver.schedule().split());
  const Counts c = count(solver.schedule(), solver.partition().local_size(), {solver.partition().owned()});
  for (index_t v = 0; v < solver.partition().local_size(); ++v) {
    const bool is_owned = v >= solver.partition().owned().begin && v < solver.partition().owned().end;
    EXPECT_EQ(c.bulk[std::size_t(v)], is_owned ? 1 : 0) << "voxel " << v;
    EXPECT_EQ(c.boundary[std::size_t(v)], 0) << "voxel " << v;
  }
}

}  // namespace
