#pragma once
/// \file voxel_list.hpp
/// A set of voxels as a sorted list of indices, and a launch over a slice of it: the form a
/// sparse set (the voxels next to a boundary, a few per cent of a box) takes so that a kernel
/// runs on those voxels only.

#include <karman/core/error.hpp>
#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace karman {

/// Voxel indices in ascending order, on the device.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class VoxelList {
 public:
  VoxelList() = default;
  /// List of `voxels`, which must be ascending and free of repeats.
  VoxelList(const std::string& label, const std::vector<index_t>& voxels)
      : m_host(voxels), m_voxels(label, voxels.size()) {
    for (std::size_t k = 1; k < voxels.size(); ++k) {
      if (voxels[k] <= voxels[k - 1]) {
        throw Error("karman::VoxelList: voxel " + std::to_string(voxels[k]) + " at position " + std::to_string(k) +
                    " does not follow " + std::to_string(voxels[k - 1]) + " (the list must be ascending)");
      }
    }
    Kokkos::deep_copy(m_voxels,
                      Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          voxels.data(), voxels.size()));
  }

  /// Number of voxels in the list.
  index_t size() const { return index_t(m_host.size()); }
  /// Positions [first, last) of the list entries that fall inside `range` (host side).
  VoxelRange positions_in(const VoxelRange& range) const {
    const auto lo = std::lower_bound(m_host.begin(), m_host.end(), range.begin);
    const auto hi = std::lower_bound(lo, m_host.end(), range.end);
    return {index_t(lo - m_host.begin()), index_t(hi - m_host.begin())};
  }
  /// The list on the device, for kernels (the list object itself holds a host copy).
  Kokkos::View<const index_t*, MemorySpace> device_view() const { return m_voxels; }

 private:
  std::vector<index_t> m_host;  ///< host copy for slicing; never captured by kernels
  Kokkos::View<index_t*, MemorySpace> m_voxels;
};

namespace detail {
/// Calls the wrapped functor on the voxel at each list position.
template <class MemorySpace, class Functor>
struct ListedVoxels {
  Kokkos::View<const index_t*, MemorySpace> voxels;
  Functor functor;
  KOKKOS_INLINE_FUNCTION void operator()(index_t k) const { functor(voxels(k)); }
};
}  // namespace detail

/// Calls `functor(voxel)` for the voxels of `list` inside `range` on `space` (asynchronous).
template <class... Properties, class ExecutionSpace, class MemorySpace, class Functor>
void for_each(const std::string& label, const VoxelList<MemorySpace>& list, const VoxelRange& range,
              const ExecutionSpace& space, const Functor& functor) {
  const VoxelRange slice = list.positions_in(range);
  if (slice.empty()) return;
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>, Properties...> policy(space, slice.begin,
                                                                                              slice.end);
  Kokkos::parallel_for(label,
                       Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight),
                       detail::ListedVoxels<MemorySpace, Functor>{list.device_view(), functor});
}

}  // namespace karman
