#pragma once
/// \file copy_bandwidth.hpp
/// The reference every LBM figure is compared with: a device-memory copy measured in the same
/// process, on the same backend, over buffers far larger than the last-level cache. A dense
/// LBM update reads and writes as many bytes as a copy of its populations (docs/performance.md), so the copy is its
/// ceiling; on CPUs this is the STREAM copy.

#include <cstddef>
#include <string>
#include <vector>

namespace karman::perf {

/// Bandwidth of one copy kernel: bytes read plus bytes written per second, in GB/s (1e9 B/s).
struct CopyKernelResult {
  std::string name;  ///< e.g. "packet16x4": four 16-byte packets per work item
  double gbps = 0;   ///< median over the timed samples
};

/// What the copy reference measured.
struct CopyBandwidth {
  double best_gbps = 0;                   ///< the fastest copy kernel: the reference
  std::string best_kernel;                ///< its name
  std::vector<CopyKernelResult> kernels;  ///< every Kokkos copy kernel tried
  double deep_copy_gbps = 0;              ///< Kokkos::deep_copy (cudaMemcpy on CUDA), for context
  std::size_t buffer_bytes = 0;           ///< bytes of each of the two buffers
};

/// Copies a `buffer_bytes` source buffer into a destination with each copy kernel, after a
/// warm-up, `repeat` timed samples of several passes each, checks every copied value, and
/// returns the median bandwidth per kernel. Throws karman::Error for buffer_bytes below 1 MiB
/// or repeat below 1.
CopyBandwidth measure_copy_bandwidth(std::size_t buffer_bytes, int repeat);

}  // namespace karman::perf
