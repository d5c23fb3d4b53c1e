#pragma once
/// \file kokkos_compat.hpp
/// The one place where Kokkos 3.4 and Kokkos 4.x differences live (STYLE.md "Portability").
/// Kokkos 3.4 has KOKKOS_VERSION but none of the version-comparison macros, no
/// Kokkos::printf, no KOKKOS_IF_ON_HOST and no Kokkos::Experimental::partition_space.

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <vector>

/// Kokkos version as MMmmpp (30401 for 3.4.1, 40700 for 4.7.0).
#define KARMAN_KOKKOS_VERSION KOKKOS_VERSION
/// True when the Kokkos in use is at least major.minor.
#define KARMAN_KOKKOS_AT_LEAST(major, minor) (KOKKOS_VERSION >= ((major)*10000 + (minor)*100))

namespace karman::compat {

/// Fence the whole device with a label (the labelled overload appeared in Kokkos 3.6).
inline void fence(const std::string& label) {
#if KARMAN_KOKKOS_AT_LEAST(3, 6)
  Kokkos::fence(label);
#else
  (void)label;
  Kokkos::fence();
#endif
}

/// Fence one execution-space instance with a label.
template <class ExecutionSpace>
void fence(const ExecutionSpace& space, const std::string& label) {
#if KARMAN_KOKKOS_AT_LEAST(3, 6)
  space.fence(label);
#else
  (void)label;
  space.fence();
#endif
}

#if defined(KOKKOS_ENABLE_CUDA) && KARMAN_KOKKOS_AT_LEAST(4, 2)
namespace detail {
/// A CUDA instance that owns a new stream at the device's lowest or highest priority
/// (Kokkos >= 4.2 lets an instance own a stream it is given).
inline Kokkos::Cuda cuda_instance_at_priority(bool highest) {
  int least = 0, greatest = 0;
  if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
    throw std::runtime_error("karman: cudaDeviceGetStreamPriorityRange failed");
  }
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithPriority(&stream, cudaStreamDefault, highest ? greatest : least) != cudaSuccess) {
    throw std::runtime_error("karman: cudaStreamCreateWithPriority failed");
  }
  return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::yes);
}
}  // namespace detail
#endif

/// `count` instances of an execution space that may run concurrently, where the backend
/// allows (CUDA/HIP streams through partition_space on Kokkos >= 4.0, a stream each); otherwise
/// copies of the default instance, which run in order: overlap then comes from MPI progress
/// alone. On CUDA (Kokkos >= 4.2) the first instance's stream has the lowest priority and the
/// others the highest: the overlapped step runs its interior on the first and the shared voxels
/// on the others, whose blocks then take SMs as the interior kernel's blocks retire instead of
/// waiting for the last of them.
template <class ExecutionSpace>
std::vector<ExecutionSpace> make_concurrent_instances(int count) {
  std::vector<ExecutionSpace> instances;
#if KARMAN_KOKKOS_AT_LEAST(4, 0)
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible) {
    // A device instance of its own per call: a stream each.
    for (int i = 0; i < count; ++i) instances.push_back(Kokkos::Experimental::partition_space(ExecutionSpace(), 1)[0]);
    return instances;
  }
  if (count == 2) {
    auto pair = Kokkos::Experimental::partition_space(ExecutionSpace(), 1, 1);
    instances.assign(pair.begin(), pair.end());
    return instances;
  }
#endif
  instances.assign(static_cast<std::size_t>(count), ExecutionSpace());
  return instances;
}

/// One instance of a device backend with its own stream, at the highest stream priority where
/// the backend has priorities (CUDA, Kokkos >= 4.2): for work that should take SMs as soon as
/// they free up, such as an exchanger's pack kernels beside an interior kernel on a
/// low-priority stream. Host backends (whose launches run to completion) and Kokkos 3.x get a
/// copy of the default instance, with all its threads.
template <class ExecutionSpace>
ExecutionSpace make_priority_instance() {
#if KARMAN_KOKKOS_AT_LEAST(4, 0)
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible) {
    return Kokkos::Experimental::partition_space(ExecutionSpace(), 1)[0];
  }
#endif
  return ExecutionSpace();
}

#if defined(KOKKOS_ENABLE_CUDA) && KARMAN_KOKKOS_AT_LEAST(4, 2)
template <>
inline std::vector<Kokkos::Cuda> make_concurrent_instances<Kokkos::Cuda>(int count) {
  std::vector<Kokkos::Cuda> instances;
  for (int i = 0; i < count; ++i) instances.push_back(detail::cuda_instance_at_priority(i != 0));
  return instances;
}

template <>
inline Kokkos::Cuda make_priority_instance<Kokkos::Cuda>() {
  return detail::cuda_instance_at_priority(true);
}
#endif

/// Device-callable math: Kokkos::Experimental in 3.x, Kokkos in 4.x.
namespace math {
#if KARMAN_KOKKOS_AT_LEAST(4, 0)
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::fabs;
using Kokkos::fmax;
using Kokkos::fmin;
using Kokkos::isfinite;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::fmin;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif
}  // namespace math

/// Kokkos version as "major.minor.patch".
inline std::string kokkos_version_string() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}

}  // namespace karman::compat
