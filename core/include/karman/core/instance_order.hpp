#pragma once
/// \file instance_order.hpp
/// Orders the work queued on one execution-space instance after the work queued so far on
/// another, without the host waiting: on CUDA and HIP an event recorded on the second
/// instance's stream that the first stream waits for (what Kokkos has no portable call for);
/// elsewhere a fence of the second instance, which on a host backend costs nothing (a launch
/// there returns when its kernel has run).
///
/// The overlapped step uses it so that a GPU runs one step's kernels after the last with no host
/// round trip between them (no gap while the host wakes from a fence and launches), which is what
/// strong scaling loses most to once the messages hide behind the interior kernel.

#include <karman/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace karman {

namespace detail {
/// A failed runtime call here is a broken device or driver, not bad input.
inline void require_device_call(bool ok, const char* call, const char* error) {
  if (!ok) throw std::runtime_error(std::string("karman::order_after: ") + call + " failed: " + error);
}
}  // namespace detail

/// Work queued on `waiting` from now on starts after everything queued on `done` so far.
template <class ExecutionSpace>
void order_after(const ExecutionSpace& waiting, const ExecutionSpace& done) {
  (void)waiting;
  compat::fence(done, "karman::order_after");
}

#if defined(KOKKOS_ENABLE_CUDA)
template <>
inline void order_after(const Kokkos::Cuda& waiting, const Kokkos::Cuda& done) {
  if (waiting.cuda_stream() == done.cuda_stream()) return;
  const auto check = [](cudaError_t result, const char* call) {
    detail::require_device_call(result == cudaSuccess, call, cudaGetErrorString(result));
  };
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  check(cudaEventRecord(event, done.cuda_stream()), "cudaEventRecord");
  check(cudaStreamWaitEvent(waiting.cuda_stream(), event, 0), "cudaStreamWaitEvent");
  // Destroying a recorded event is allowed: its resources go once the stream has passed it.
  check(cudaEventDestroy(event), "cudaEventDestroy");
}
#endif

#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
using HipExecutionSpace = Kokkos::HIP;
#else
using HipExecutionSpace = Kokkos::Experimental::HIP;
#endif
template <>
inline void order_after(const HipExecutionSpace& waiting, const HipExecutionSpace& done) {
  if (waiting.hip_stream() == done.hip_stream()) return;
  const auto check = [](hipError_t result, const char* call) {
    detail::require_device_call(result == hipSuccess, call, hipGetErrorString(result));
  };
  hipEvent_t event = nullptr;
  check(hipEventCreateWithFlags(&event, hipEventDisableTiming), "hipEventCreateWithFlags");
  check(hipEventRecord(event, done.hip_stream()), "hipEventRecord");
  check(hipStreamWaitEvent(waiting.hip_stream(), event, 0), "hipStreamWaitEvent");
  check(hipEventDestroy(event), "hipEventDestroy");
}
#endif

}  // namespace karman
