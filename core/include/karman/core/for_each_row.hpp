#pragma once
/// \file for_each_row.hpp
/// CPU launch of a voxel functor by x-rows: one work item per row of the local box, the row's
/// stencil offsets resolved once, and its inner voxels in one loop the compiler vectorises
/// across x (KARMAN_SIMD). A per-voxel launch pays a division and a few selects per voxel to
/// find its neighbours, and its call per voxel keeps the body scalar: the D3Q19 update ran at
/// 21 % of the copy bandwidth on two cores that way, and a row loop reached 96-99 % in a probe
/// (docs/performance.md §6.11). GPU backends keep one thread per voxel, which is what coalesces
/// there.
///
/// A functor runs by rows when it says so (`static constexpr bool by_rows = true`) and offers:
///  - `int row_length() const`: voxels per x-row (nx of the local box);
///  - `Row row(index_t first) const`: what every voxel of the row starting at voxel `first`
///    shares (stencil offsets, say);
///  - `operator()(index_t v, const Row&)`: the update of a voxel strictly inside its row,
///    inlined into the vector loop;
///  - `operator()(index_t v)`: the update of any voxel, for x = 0 and x = nx - 1;
///  - optionally `static constexpr bool rerunnable = true` when updating a voxel twice leaves what
///    updating it once does (it reads nothing it writes, as the AB pull): then a row runs in whole
///    chunks of `row_chunk` voxels, the last one ending at the row's end and overlapping the one
///    before it, instead of a vector loop and a scalar remainder (which cost as much as half the
///    vector part: GCC 12 has no masked epilogue on x86); a run shorter than a chunk goes per
///    voxel;
///  - optionally `void prefetch(index_t v, const Row& r) const`: prefetch hints (prefetch.hpp)
///    for the lines the updates of voxels [v, v + row_chunk) of r's planes will touch. Each
///    chunk of `row_chunk` voxels hints those `row_prefetch_distance` voxels ahead.
/// Any other functor, or a range that does not start and end on a row boundary, runs per voxel
/// (for_each).

#include <karman/core/backend_traits.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/voxel_mask.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace karman {

/// True when Functor declares `by_rows = true` (see the file comment).
template <class Functor, class = void>
inline constexpr bool runs_by_rows = false;
template <class Functor>
inline constexpr bool runs_by_rows<Functor, std::void_t<decltype(Functor::by_rows)>> = Functor::by_rows;

/// True when Functor declares `rerunnable = true` (see the file comment).
template <class Functor, class = void>
inline constexpr bool reruns_voxels = false;
template <class Functor>
inline constexpr bool reruns_voxels<Functor, std::void_t<decltype(Functor::rerunnable)>> = Functor::rerunnable;

/// True when Functor offers `prefetch(v, row)` (see the file comment).
template <class Functor, class = void>
inline constexpr bool prefetches_rows = false;
template <class Functor>
inline constexpr bool prefetches_rows<Functor, std::void_t<decltype(std::declval<const Functor&>().prefetch(
                                                   index_t(0), std::declval<const typename Functor::Row&>()))>> = true;

/// Voxels per chunk of a rerunnable row: two or four vectors of 8 floats or 4 doubles (256-bit
/// lanes, what GCC uses for AVX-512 targets by default), one of 16 floats in 512-bit lanes.
inline constexpr index_t row_chunk = 16;

/// How far ahead of the chunk it updates a row loop hints lines in, in voxels: 1 KiB ahead in
/// each float stream, a few rows of a small box. 128 to 1024 ran alike on a 2-core EPYC VM
/// (docs/performance.md, "CPU rows with a software prefetch"); hints at the chunk itself
/// come too late and only cost instructions.
inline constexpr index_t row_prefetch_distance = 256;

namespace detail {

/// Runs `functor` over the voxels of rows first_row, first_row + 1, ...: all of them, or those
/// in `members` when `masked` (and update_or_fill(v, true) on those in `fillers` when `filled`). One
/// call site of the inlined body serves all, so a functor's body is compiled once more for rows,
/// not once per launch form.
template <class Functor, class MemorySpace>
struct RowsOf {
  Functor functor;
  VoxelMask<MemorySpace> members, fillers;
  bool masked, filled;
  index_t first_row;
  int nx;

  KARMAN_KERNEL_BODY KARMAN_FLATTEN void operator()(index_t r) const {
    const index_t first = (first_row + r) * nx, end = first + nx;
    // Consecutive members run together: the bulk voxels of a row with walls at both ends are
    // one run, so the mask costs one test per voxel and no masked vector lanes.
    for (index_t v = first; v < end;) {
      index_t begin = first, stop = end;
      if (masked) {
        for (; v < end && !members.contains(v); ++v) fill(v);
        begin = v;
        while (v < end && members.contains(v)) ++v;
        stop = v;
      } else {
        v = end;
      }
      if (begin < stop) run(first, begin, stop);
    }
  }

  /// Voxels [begin, end) of the row starting at voxel `first`. The vectorised body appears in
  /// one loop only: a second copy (a rerunnable functor's short runs) cost a third of a solver
  /// unit's compile time for runs that are rare and short (docs/building.md).
  KOKKOS_INLINE_FUNCTION void run(index_t first, index_t begin, index_t end) const {
    // The voxels at x = 0 and nx - 1 wrap along x: the general path.
    if (begin == first) functor(begin++);
    if (begin < end && end == first + nx) functor(--end);
    if (begin >= end) return;
    if constexpr (reruns_voxels<Functor>) {
      if (end - begin < row_chunk) {
        for (index_t v = begin; v < end; ++v) functor(v);
        return;
      }
    }
    const auto row = functor.row(first);
    for (index_t c = begin;; c += row_chunk) {
      // A rerunnable functor's last chunk ends at the row's end, overlapping the one before.
      if constexpr (reruns_voxels<Functor>) {
        if (c + row_chunk > end) c = end - row_chunk;
      }
      prefetch(c + row_prefetch_distance, row);
      const index_t stop = reruns_voxels<Functor> || c + row_chunk < end ? c + row_chunk : end;
      KARMAN_SIMD
      for (index_t v = c; v < stop; ++v) functor(v, row);
      if (stop == end) return;
    }
  }

  /// Fills voxel v's slots when it is one of the fillers (a CPU gains nothing from it, but the
  /// slots then hold on every backend what a GPU writes into them).
  KOKKOS_INLINE_FUNCTION void fill(index_t v) const {
    if constexpr (fills_transactions<Functor>) {
      if (filled && fillers.contains(v)) functor.update_or_fill(v, true);
    }
  }

  /// Hints the lines of voxels [v, v + row_chunk) in, for functors that offer it.
  template <class Row>
  KOKKOS_INLINE_FUNCTION void prefetch(index_t v, const Row& row) const {
    if constexpr (prefetches_rows<Functor>) functor.prefetch(v, row);
  }
};

template <class ExecutionSpace, class Functor, class MemorySpace>
void launch_rows(const std::string& label, const VoxelRange& range, const ExecutionSpace& space, const Functor& functor,
                 const VoxelMask<MemorySpace>& members, bool masked, const VoxelMask<MemorySpace>& fillers = {},
                 bool filled = false) {
  const int nx = functor.row_length();
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>> rows(space, 0, range.size() / nx);
  Kokkos::parallel_for(label, rows,
                       RowsOf<Functor, MemorySpace>{functor, members, fillers, masked, filled, range.begin / nx, nx});
}

/// True when `range` is whole rows of `functor`'s box.
template <class Functor>
bool whole_rows(const Functor& functor, const VoxelRange& range) {
  const int nx = functor.row_length();
  return range.begin % nx == 0 && range.end % nx == 0;
}

}  // namespace detail

/// Calls `functor(voxel)` for every voxel of `range` on `space`: by rows on CPU backends when
/// the functor runs by rows and the range is whole rows, else per voxel as for_each.
template <class... Properties, class ExecutionSpace, class Functor>
void for_each_row(const std::string& label, const VoxelRange& range, const ExecutionSpace& space,
                  const Functor& functor) {
  if constexpr (!BackendTraits<ExecutionSpace>::is_gpu && runs_by_rows<Functor>) {
    if (!range.empty() && detail::whole_rows(functor, range)) {
      detail::launch_rows(label, range, space, functor, VoxelMask<typename ExecutionSpace::memory_space>(), false);
      return;
    }
  }
  for_each<Properties...>(label, range, space, functor);
}

/// Calls `functor(voxel)` for every voxel of `range` in `mask` on `space`, by rows where
/// for_each_row would.
template <class... Properties, class ExecutionSpace, class MemorySpace, class Functor>
void for_each_row(const std::string& label, const VoxelRange& range, const VoxelMask<MemorySpace>& mask,
                  const ExecutionSpace& space, const Functor& functor) {
  if constexpr (!BackendTraits<ExecutionSpace>::is_gpu && runs_by_rows<Functor>) {
    if (!range.empty() && detail::whole_rows(functor, range)) {
      detail::require_within(range, mask);
      detail::launch_rows(label, range, space, functor, mask, true);
      return;
    }
  }
  for_each<Properties...>(label, range, mask, space, functor);
}

/// As above, and `functor.update_or_fill(voxel, true)` for every voxel of `range` in `fillers` and
/// not in `mask` (voxel_mask.hpp).
template <class... Properties, class ExecutionSpace, class MemorySpace, class Functor>
void for_each_row(const std::string& label, const VoxelRange& range, const VoxelMask<MemorySpace>& mask,
                  const VoxelMask<MemorySpace>& fillers, const ExecutionSpace& space, const Functor& functor) {
  if constexpr (!BackendTraits<ExecutionSpace>::is_gpu && runs_by_rows<Functor>) {
    if (!range.empty() && detail::whole_rows(functor, range)) {
      detail::require_within(range, mask);
      detail::require_within(range, fillers);
      detail::launch_rows(label, range, space, functor, mask, true, fillers, true);
      return;
    }
  }
  for_each<Properties...>(label, range, mask, fillers, space, functor);
}

}  // namespace karman
