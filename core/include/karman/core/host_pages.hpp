#pragma once
/// \file host_pages.hpp
/// Large host allocations on huge pages. A CPU update streams 2Q arrays at once (38 for D3Q19
/// AB); on 4 KiB pages a box of a few hundred MB misses the TLB on most of those streams, and
/// Linux hands out transparent huge pages only to memory marked for them (the common
/// `madvise` setting). The marking must come before the first touch, so such Views are
/// allocated uninitialised, marked, then zeroed in parallel (also the first touch that places
/// pages on the NUMA node of the thread that uses them).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace karman {

/// A zero-initialised rank-1 View of `size` elements; in HostSpace and past 2 MiB its pages are
/// marked for transparent huge pages before anything touches them.
template <class ViewType>
ViewType allocate_zeroed(const std::string& label, std::size_t size) {
  using memory_space = typename ViewType::memory_space;
  constexpr std::size_t huge_page = std::size_t(2) << 20;
  if constexpr (std::is_same_v<memory_space, Kokkos::HostSpace>) {
    if (size * sizeof(typename ViewType::value_type) >= huge_page) {
      ViewType v(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      const auto first = (reinterpret_cast<std::uintptr_t>(v.data()) + huge_page - 1) / huge_page * huge_page;
      const auto last = (reinterpret_cast<std::uintptr_t>(v.data() + size)) / huge_page * huge_page;
      // Advice only: where the kernel refuses, the pages stay small and nothing else changes.
      if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
      Kokkos::deep_copy(v, typename ViewType::value_type{});
      return v;
    }
  }
  return ViewType(label, size);
}

}  // namespace karman
