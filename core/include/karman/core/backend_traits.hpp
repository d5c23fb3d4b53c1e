#pragma once
/// \file backend_traits.hpp
/// Per-backend defaults in one trait (Cabana_PerformanceTraits): the one header besides
/// kokkos_compat.hpp allowed to name backends.

#include <Kokkos_Core.hpp>

#include <string>

/// 1 in the device pass of a GPU compiler (nvcc's or hipcc's), 0 on the host: for the few device
/// functions whose best form differs between a GPU thread and a vectorising CPU core.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KARMAN_DEVICE_PASS 1
#else
#define KARMAN_DEVICE_PASS 0
#endif

/// Fully unroll the next loop (its trip count is a compile-time constant): keeps per-voxel
/// population arrays in registers on GPUs and lets the host compiler vectorise.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KARMAN_UNROLL _Pragma("unroll")
#elif defined(__NVCC__)
// nvcc's host pass accepts neither GCC's nor clang's pragma; the host compiler unrolls anyway.
#define KARMAN_UNROLL
#elif defined(__clang__)
#define KARMAN_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define KARMAN_UNROLL _Pragma("GCC unroll 32")
#else
#define KARMAN_UNROLL
#endif

/// Vectorise the next loop across its iterations, which are independent: the x-row loop of a
/// CPU launch by rows (for_each_row.hpp). GCC and clang refuse such a loop on their own when
/// they cannot prove that the written lattice does not alias the read one, or that an AA
/// update's slots of different voxels differ (stream_collide.hpp says why they do).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__NVCC__)
#define KARMAN_SIMD
#elif defined(_OPENMP)
#define KARMAN_SIMD _Pragma("omp simd")
#elif defined(__clang__)
#define KARMAN_SIMD _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define KARMAN_SIMD _Pragma("GCC ivdep")
#else
#define KARMAN_SIMD
#endif

/// A kernel body compiled once per functor on CPU builds. Kokkos' OpenMP launch inlines a
/// functor into both its serial and its parallel path, and a step launches one functor over
/// ranges, voxel lists and bit masks (update_schedule.hpp): inlined, each body was optimised
/// up to four times, most of a solver unit's compile time. One call per voxel costs little
/// beside a scalar body of hundreds of instructions. GPU builds inline as always.
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
#define KARMAN_KERNEL_BODY KOKKOS_INLINE_FUNCTION
#elif defined(__GNUC__)
#define KARMAN_KERNEL_BODY __attribute__((noinline))
#else
#define KARMAN_KERNEL_BODY
#endif

/// KARMAN_FLATTEN: inline every call in the function's body, recursively (but those marked
/// noinline): the update a row loop vectorises (for_each_row.hpp) must reach it as one body, or
/// the loop stays scalar; GCC kept TRT's and MRT's collision, and the D3Q19 Disaggregated AA odd
/// step's load, out of line on its own, and those loops with them.
/// KARMAN_INLINE_LAMBDA, placed after a lambda's parameter list: inline the lambda wherever it
/// is called. flatten leaves a lambda out of line once GCC finds it too large to inline (--param
/// max-inline-insns-single): StreamCollide::update_block's lambdas, one a population
/// (block_tile.hpp, BlockTile::pull, says what inlining them gained).
/// Neither under AddressSanitizer (the debug preset, -O1, which vectorises nothing):
/// instrumented, the flattened bodies took two thirds of a solver unit's compile
/// (docs/building.md).
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
#define KARMAN_FLATTEN
#define KARMAN_INLINE_LAMBDA
#elif defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define KARMAN_FLATTEN __attribute__((flatten))
#define KARMAN_INLINE_LAMBDA __attribute__((always_inline))
#else
#define KARMAN_FLATTEN
#define KARMAN_INLINE_LAMBDA
#endif

namespace karman {

/// Defaults for an execution space: the CSoA chunk size that keeps one chunk of one component
/// a full coalesced transaction (warp of 32 on CUDA, wavefront of 64 on HIP, a few SIMD lanes
/// on CPUs).
///
/// `transaction_bytes` is the smallest unit of memory traffic: a 32-byte sector on GPUs, a
/// 64-byte cache line on CPUs. Work on fewer consecutive bytes still moves that much.
///
/// `schedule_tile_bytes`: the bytes of a population that the split schedule classifies as bulk
/// or boundary together (update_schedule.hpp). A GPU's sector: a warp's boundary voxels then
/// read and write whole sectors. Less than one value on CPUs, a tile of one voxel: tiles of a
/// cache line put up to 15 bulk voxels beside each boundary voxel into the scalar boundary
/// kernel, where the bulk rows run them vectorised (docs/performance.md §6.19).
template <class ExecutionSpace>
struct BackendTraits {
  static constexpr int csoa_alpha = 8;
  static constexpr int transaction_bytes = 64;
  static constexpr int schedule_tile_bytes = 1;
  static constexpr bool is_gpu = false;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct BackendTraits<Kokkos::Cuda> {
  static constexpr int csoa_alpha = 32;
  static constexpr int transaction_bytes = 32;
  static constexpr int schedule_tile_bytes = transaction_bytes;
  static constexpr bool is_gpu = true;
};
#endif

#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
template <>
struct BackendTraits<Kokkos::HIP> {
#else
template <>
struct BackendTraits<Kokkos::Experimental::HIP> {
#endif
  static constexpr int csoa_alpha = 64;
  static constexpr int transaction_bytes = 32;
  static constexpr int schedule_tile_bytes = transaction_bytes;
  static constexpr bool is_gpu = true;
};
#endif

/// What the running process computes on.
struct BackendInfo {
  std::string kokkos_version;    ///< e.g. "3.4.1"
  std::string enabled_backends;  ///< comma-separated execution spaces compiled in
  std::string default_backend;   ///< name of Kokkos::DefaultExecutionSpace
  std::string device_name;       ///< GPU model, or the CPU model
  double device_memory_gib = 0;  ///< GPU memory, or host memory
  int concurrency = 0;           ///< threads (host) or maximum resident threads (device)
};

/// Queries the backend; call after Kokkos::initialize.
BackendInfo backend_info();

}  // namespace karman
