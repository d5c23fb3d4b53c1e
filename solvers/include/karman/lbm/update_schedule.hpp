#pragma once
/// \file update_schedule.hpp
/// Which kernel updates which voxel. Voxels are classified once, at set-up, from their flag
/// words: *bulk* voxels are fluid and pull every population from a fluid neighbour, so they
/// run the kernel of a periodic fluid box (no flag word, no boundary code, few registers);
/// *boundary* voxels (next to a wall, or inlets and outlets) run the kernel that handles every
/// boundary kind; solid voxels run nothing. This is Meneghin & Mahmoud's split of boundary and
/// non-boundary work into separate kernels (§IV, Table II) applied to the dense grid: the bulk
/// is marked by a bitmask, the boundary voxels (a few per cent of a box) are a sorted list.
///
/// The classification is made per tile of consecutive voxels, as many as fill one memory
/// transaction of a population on GPUs and one voxel on CPUs (BackendTraits::schedule_tile_bytes):
/// a tile runs the bulk kernel only when all its non-solid voxels are bulk, otherwise every
/// non-solid voxel of it runs the boundary kernel; solid voxels run neither. Since walls at rest bounce through their
/// solid voxels' slots in AB (wall_slots.hpp), the voxels next to them are bulk there. Voxels next to a wall across x
/// sit alone in their row, and a GPU kernel over them alone would read and write a whole transaction for every 4-byte
/// population; in whole tiles the boundary kernel's accesses stay as coalesced as the bulk kernel's. A CPU's caches
/// hold a line for both kernels, and its bulk rows run the voxels between boundary voxels vectorised. Every voxel of a
/// slot is read and written by one voxel within a step (stream_collide.hpp), so the two kernels may run in either
/// order: the split is a schedule, not new physics.

#include <karman/core/error.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/for_each_row.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/core/voxel_list.hpp>
#include <karman/core/voxel_mask.hpp>
#include <karman/lbm/cell_flags.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

namespace karman::lbm {

/// How a case with boundaries runs its voxels (Meneghin & Mahmoud Table II compares the two).
enum class Schedule {
  split,  ///< bulk voxels by the bulk kernel, boundary voxels by the boundary kernel
  fused,  ///< every voxel by the boundary kernel, which reads the flag word of each
};

/// True when a voxel of flag word `fl` runs the bulk kernel: fluid, no population from a
/// non-fluid source.
constexpr bool is_bulk(flag_t fl) { return flags::kind(fl) == CellKind::fluid && flags::mask(fl) == 0; }

/// True when a voxel lets its tile run the bulk kernel: bulk, or solid (skipped by both kernels).
constexpr bool bulk_or_solid(flag_t fl) { return is_bulk(fl) || flags::kind(fl) == CellKind::solid; }

/// True when the AB bulk kernel over a population field of `Layout` also fills the solid voxels of
/// its tiles (UpdateSchedule's fillers): on a GPU the sectors a tile writes then hold no solid
/// voxel's unwritten words. Measured on an H100 (docs/performance.md §6.35) it pays for SoA, where
/// each population of a row is one run, and costs CSoA, whose chunks interleave the populations;
/// other layouts are not measured and keep the kernel without fills.
template <class Layout>
inline constexpr bool fills_partial_sectors = std::is_same_v<Layout, SoA>;

/// Kernel names of one launch site: `whole` when one kernel runs every voxel, `bulk` and
/// `boundary` (the name + "_bulk" / "_boundary") when the schedule splits them. Built once
/// per site, so a launch does not concatenate strings.
struct KernelLabels {
  std::string whole, bulk, boundary;
  KernelLabels(const std::string& name) : whole(name), bulk(name + "_bulk"), boundary(name + "_boundary") {}
  KernelLabels(const char* name) : KernelLabels(std::string(name)) {}
};

/// The bulk/boundary classification of one rank's voxels and the launches that follow it.
template <class MemorySpace>
class UpdateSchedule {
 public:
  /// Every voxel is bulk: a box with no flag field.
  UpdateSchedule() = default;

  /// Classifies the voxels of `owned` from the flag words of every local voxel, in aligned
  /// tiles of `tile` voxels. With `fill_solid_slots` (the AB pull, where no update reads a solid
  /// voxel's slots of the lattice it writes: wall_slots.hpp fills the ones read before the next
  /// step), the solid voxels of a bulk tile that holds a non-solid voxel are the bulk kernel's
  /// fillers: it writes their slots too, so that the tile's sectors are written whole.
  UpdateSchedule(const std::vector<flag_t>& flag_words, const VoxelRange& owned, int tile, Schedule mode,
                 bool fill_solid_slots = false)
      : m_mode(mode), m_classified(true) {
    require_in_range("karman::lbm::UpdateSchedule", "tile", tile, 1, 1 << 16);
    std::vector<bool> bulk(flag_words.size(), false), fillers(flag_words.size(), false);
    std::vector<index_t> boundary;
    const auto solid = [&](index_t v) { return flags::kind(flag_words[std::size_t(v)]) == CellKind::solid; };
    for (index_t first = owned.begin / tile * tile; first < owned.end; first += tile) {
      const index_t begin = std::max(first, owned.begin), end = std::min(first + tile, owned.end);
      bool all_bulk = true, any_fluid = false;
      for (index_t v = begin; v < end; ++v) {
        all_bulk = all_bulk && bulk_or_solid(flag_words[std::size_t(v)]);
        any_fluid = any_fluid || !solid(v);
      }
      for (index_t v = begin; v < end; ++v) {
        if (solid(v)) {
          if (fill_solid_slots && all_bulk && any_fluid && mode == Schedule::split) {
            fillers[std::size_t(v)] = true;
            ++m_filler_voxels;
          }
          continue;
        }
        if (all_bulk) {
          bulk[std::size_t(v)] = true;
          ++m_bulk_voxels;
        } else {
          boundary.push_back(v);
        }
      }
    }
    m_bulk = VoxelMask<MemorySpace>("karman::bulk_voxels", bulk);
    if (m_filler_voxels > 0) m_fillers = VoxelMask<MemorySpace>("karman::filler_voxels", fillers);
    m_boundary = VoxelList<MemorySpace>("karman::boundary_voxels", boundary);
  }

  /// Runs `bulk(v)` on the bulk voxels of `range` on `space` and `boundary(v)` on its boundary
  /// voxels on `boundary_space` (asynchronous), the boundary kernel launched first. Without a
  /// classification `bulk` runs on every voxel (named label.whole); fused, `boundary` does
  /// (label.boundary); both on `space`. The caller orders the two instances: the kernels may run
  /// at the same time, since they read and write different slots (the file comment). On a GPU the
  /// boundary kernel holds a few per cent of the voxels but takes 11-12 us of a 192^3 D3Q27 step
  /// on an H200 whatever the rank's share of the box (docs/performance.md, "where a step's time
  /// goes"): on the bulk kernel's stream that time adds to every step; on a second stream
  /// beside it a step took 4 us less on one GPU and 9 us less on each of two (192^3 D3Q27 SoA,
  /// docs/performance.md, "the interior's boundary kernel beside its bulk kernel").
  /// Ranges and the bulk mask run by x-rows on CPUs (for_each_row.hpp), the boundary list per voxel.
  template <class... Properties, class ExecutionSpace, class Bulk, class Boundary>
  void run(const KernelLabels& label, const VoxelRange& range, const ExecutionSpace& space,
           const ExecutionSpace& boundary_space, const Bulk& bulk, const Boundary& boundary) const {
    if (!m_classified) {
      for_each_row<Properties...>(label.whole, range, space, bulk);
    } else if (m_mode == Schedule::fused) {
      for_each_row<Properties...>(label.boundary, range, space, boundary);
    } else {
      for_each<Properties...>(label.boundary, m_boundary, range, boundary_space, boundary);
      if constexpr (fills_transactions<Bulk>) {
        if (m_filler_voxels > 0) {
          for_each_row<Properties...>(label.bulk, range, m_bulk, m_fillers, space, bulk);
          return;
        }
      }
      for_each_row<Properties...>(label.bulk, range, m_bulk, space, bulk);
    }
  }

  /// True when the boundary kernel runs on its own (split, with boundary voxels): only then does
  /// run() use its `boundary_space`.
  bool boundary_kernel_apart() const { return split() && m_boundary.size() > 0; }

  /// True when voxels were classified (a case with a flag field).
  bool split() const { return m_classified && m_mode == Schedule::split; }
  /// Voxels the bulk kernel updates (of the classified range; 0 without a classification).
  index_t bulk_voxels() const { return m_bulk_voxels; }
  /// Voxels the boundary kernel updates.
  index_t boundary_voxels() const { return m_boundary.size(); }
  /// Solid voxels whose slots the bulk kernel fills (the constructor's fill_solid_slots).
  index_t filler_voxels() const { return m_filler_voxels; }

 private:
  Schedule m_mode = Schedule::split;
  bool m_classified = false;
  index_t m_bulk_voxels = 0;
  index_t m_filler_voxels = 0;
  VoxelMask<MemorySpace> m_bulk, m_fillers;
  VoxelList<MemorySpace> m_boundary;
};

}  // namespace karman::lbm
