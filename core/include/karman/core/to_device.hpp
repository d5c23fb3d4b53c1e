#pragma once
/// \file to_device.hpp
/// A host-built table (std::vector) copied into a View of a memory space: what set-up code hands
/// the kernels after building their tables on the host.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace karman {

/// A View of MemorySpace labelled `label` holding a copy of `host`.
template <class MemorySpace, class T>
Kokkos::View<T*, MemorySpace> to_device(const std::string& label, const std::vector<T>& host) {
  Kokkos::View<T*, MemorySpace> device(label, host.size());
  Kokkos::deep_copy(device, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                host.data(), host.size()));
  return device;
}

}  // namespace karman
