#pragma once
/// \file voxel_mask.hpp
/// A set of voxels as one bit per voxel, and a launch over the voxels of a range that belong
/// to it. The bitmask is how Meneghin & Mahmoud §IV (Table II, "bitmask") mark boundary and
/// non-boundary work inside one kernel: a warp reads one 32-bit word for 32 voxels, so the
/// test costs next to nothing in memory traffic and registers.

#include <karman/core/error.hpp>
#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace karman {

/// One bit per voxel of [0, voxels()): set for the voxels in the set.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class VoxelMask {
 public:
  using word_type = std::uint32_t;
  static constexpr int bits_per_word = 32;

  VoxelMask() = default;
  /// Mask of `members.size()` voxels, voxel v in the set when members[v] is true.
  VoxelMask(const std::string& label, const std::vector<bool>& members)
      : m_voxels(index_t(members.size())), m_words(label, words_for(m_voxels)) {
    auto host = Kokkos::create_mirror_view(m_words);
    for (std::size_t w = 0; w < host.extent(0); ++w) host(w) = 0;
    for (std::size_t v = 0; v < members.size(); ++v)
      if (members[v]) host(v / bits_per_word) |= word_type(1) << (v % bits_per_word);
    Kokkos::deep_copy(m_words, host);
  }

  /// True when voxel v is in the set (v in [0, voxels())).
  KOKKOS_INLINE_FUNCTION bool contains(index_t v) const {
    return (m_words(v / bits_per_word) >> (v % bits_per_word)) & 1u;
  }
  /// Voxels the mask covers.
  index_t voxels() const { return m_voxels; }

 private:
  static std::size_t words_for(index_t voxels) {
    if (voxels < 0) throw Error("karman::VoxelMask: voxel count " + std::to_string(voxels) + " is negative");
    return std::size_t((voxels + bits_per_word - 1) / bits_per_word);
  }

  index_t m_voxels = 0;
  Kokkos::View<word_type*, MemorySpace> m_words;
};

/// True when Functor declares `fills_transactions = true`: it offers `update_or_fill(v, fill)`,
/// the update of voxel v or, with `fill`, a write of defined values into every slot of a voxel
/// that no update reads (a solid voxel), so that a memory transaction it shares with updated
/// voxels is written whole (for_each with fillers, below).
template <class Functor, class = void>
inline constexpr bool fills_transactions = false;
template <class Functor>
inline constexpr bool fills_transactions<Functor, std::void_t<decltype(Functor::fills_transactions)>> =
    Functor::fills_transactions;

namespace detail {
/// Calls the wrapped functor on the voxels of the mask only.
template <class Mask, class Functor>
struct MaskedVoxels {
  Mask mask;
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    if (mask.contains(v)) functor(v);
  }
};

/// Throws unless `range` lies within the voxels `mask` covers.
template <class MemorySpace>
void require_within(const VoxelRange& range, const VoxelMask<MemorySpace>& mask) {
  if (range.begin < 0 || range.end > mask.voxels()) {
    throw Error("karman::for_each: range [" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                ") outside the mask's [0, " + std::to_string(mask.voxels()) + ")");
  }
}

/// Calls the wrapped functor's update_or_fill on the voxels of the mask and of `fillers`, with
/// `fill` set for the fillers, so that one code path stores for both.
template <class Mask, class Functor>
struct MaskedVoxelsAndFillers {
  Mask mask, fillers;
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const bool fill = fillers.contains(v);
    if (fill || mask.contains(v)) functor.update_or_fill(v, fill);
  }
};
}  // namespace detail

/// Calls `functor(voxel)` for every voxel of `range` in `mask` on `space` (asynchronous).
/// `Properties` are further Kokkos policy properties, e.g. `Kokkos::LaunchBounds<256, 1>`.
template <class... Properties, class ExecutionSpace, class MemorySpace, class Functor>
void for_each(const std::string& label, const VoxelRange& range, const VoxelMask<MemorySpace>& mask,
              const ExecutionSpace& space, const Functor& functor) {
  if (range.empty()) return;
  detail::require_within(range, mask);
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>, Properties...> policy(space, range.begin,
                                                                                              range.end);
  Kokkos::parallel_for(label,
                       Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                       detail::MaskedVoxels<VoxelMask<MemorySpace>, Functor>{mask, functor});
}

/// As above, and `functor.update_or_fill(voxel, true)` for every voxel of `range` in `fillers` (and
/// not in `mask`): the voxels no update needs that share a memory sector with voxels that are
/// updated. A sector the kernel writes only in part costs a GPU more than a whole one (on an H100,
/// a cavity's bulk kernel ran 6-11 % faster with its walls' sectors filled, docs/performance.md
/// §6.32).
template <class... Properties, class ExecutionSpace, class MemorySpace, class Functor>
void for_each(const std::string& label, const VoxelRange& range, const VoxelMask<MemorySpace>& mask,
              const VoxelMask<MemorySpace>& fillers, const ExecutionSpace& space, const Functor& functor) {
  static_assert(fills_transactions<Functor>, "karman::for_each: the functor offers no update_or_fill(v, fill)");
  if (range.empty()) return;
  detail::require_within(range, mask);
  detail::require_within(range, fillers);
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>, Properties...> policy(space, range.begin,
                                                                                              range.end);
  Kokkos::parallel_for(label,
                       Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                       detail::MaskedVoxelsAndFillers<VoxelMask<MemorySpace>, Functor>{mask, fillers, functor});
}

}  // namespace karman
