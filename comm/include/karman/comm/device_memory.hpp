#pragma once
/// \file device_memory.hpp
/// What MPI needs to know about a memory space: whether the host can read it, which GPU API
/// a GPU-aware MPI would have to support for it, and where to stage it otherwise. The one
/// header of Karman::comm that names backends (STYLE.md "Portability").

#include <Kokkos_Core.hpp>

namespace karman::comm {

/// The GPU programming interface whose pointers an MPI library would have to accept.
enum class DeviceApi : int { none = 0, cuda = 1, hip = 2 };

/// Defaults for memory the host reads directly (HostSpace, CUDA UVM, host-pinned spaces):
/// MPI reads it as it is and no staging is needed.
template <class MemorySpace>
struct DeviceMemoryTraits {
  /// True when MPI running on the host may read and write the memory directly.
  static constexpr bool host_accessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  /// The API of the device memory (none for host-accessible memory).
  static constexpr DeviceApi api = DeviceApi::none;
  /// Host memory the asynchronous device-host copies can use at full speed (pinned where the
  /// backend has it; a plain HostSpace view is pageable and makes the copy synchronous).
  using staging_space = Kokkos::HostSpace;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct DeviceMemoryTraits<Kokkos::CudaSpace> {
  static constexpr bool host_accessible = false;
  static constexpr DeviceApi api = DeviceApi::cuda;
  using staging_space = Kokkos::CudaHostPinnedSpace;
};
#endif

#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
template <>
struct DeviceMemoryTraits<Kokkos::HIPSpace> {
  static constexpr bool host_accessible = false;
  static constexpr DeviceApi api = DeviceApi::hip;
  using staging_space = Kokkos::HIPHostPinnedSpace;
};
#else
template <>
struct DeviceMemoryTraits<Kokkos::Experimental::HIPSpace> {
  static constexpr bool host_accessible = false;
  static constexpr DeviceApi api = DeviceApi::hip;
  using staging_space = Kokkos::Experimental::HIPHostPinnedSpace;
};
#endif
#endif

}  // namespace karman::comm
