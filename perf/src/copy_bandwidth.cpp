#include <karman/perf/copy_bandwidth.hpp>

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <stdexcept>

namespace karman::perf {
namespace detail {

/// 16 bytes moved as one unit: one 128-bit load and store per packet on GPUs (the width of a
/// CUDA float4 copy), two SIMD lanes' worth on CPUs.
struct alignas(16) Packet16 {
  double lo;
  double hi;
};

using memory_space = Kokkos::DefaultExecutionSpace::memory_space;

/// Copy of `Unroll` packets per work item, item i touching i, i + stride, ...: each warp's
/// accesses stay coalesced while every thread keeps Unroll independent loads in flight before
/// its first store (bytes in flight is what saturates HBM).
template <int Unroll>
struct PacketCopy {
  Kokkos::View<const Packet16*, memory_space> src;
  Kokkos::View<Packet16*, memory_space> dst;
  index_t stride = 0;

  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    Packet16 p[Unroll];
    KARMAN_UNROLL
    for (int k = 0; k < Unroll; ++k) p[k] = src(i + k * stride);
    KARMAN_UNROLL
    for (int k = 0; k < Unroll; ++k) dst(i + k * stride) = p[k];
  }
};

/// The naive copy, one float per work item: the baseline the issue quotes (1.69 TB/s on the H100).
struct FloatCopy {
  Kokkos::View<const float*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src;
  Kokkos::View<float*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst;

  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { dst(i) = src(i); }
};

/// Source values that differ per packet (never time on zeros).
struct FillSource {
  Kokkos::View<Packet16*, memory_space> v;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { v(i) = Packet16{double(i), -0.5 * double(i)}; }
};

/// Poisons the destination so that a packet the copy missed is found.
struct Poison {
  Kokkos::View<Packet16*, memory_space> v;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const { v(i) = Packet16{-1.0, -1.0}; }
};

/// Counts packets whose copy differs from the source.
struct CountMismatches {
  Kokkos::View<const Packet16*, memory_space> src;
  Kokkos::View<const Packet16*, memory_space> dst;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i, index_t& bad) const {
    bad += (src(i).lo != dst(i).lo || src(i).hi != dst(i).hi) ? 1 : 0;
  }
};

using policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<index_t>>;

/// Median bandwidth of `launch` (one pass over `bytes` copied) over `repeat` samples.
template <class Launch>
double time_copy(const Launch& launch, std::size_t bytes, int repeat) {
  constexpr int passes_per_sample = 10;
  launch();
  compat::fence("karman::perf::copy_warmup");
  std::vector<double> gbps;
  for (int r = 0; r < repeat; ++r) {
    Kokkos::Timer timer;
    for (int p = 0; p < passes_per_sample; ++p) launch();
    compat::fence("karman::perf::copy_sample");
    const double seconds = timer.seconds();
    gbps.push_back(2.0 * double(bytes) * passes_per_sample / seconds / 1e9);
  }
  std::sort(gbps.begin(), gbps.end());
  return gbps[gbps.size() / 2];
}

}  // namespace detail

CopyBandwidth measure_copy_bandwidth(std::size_t buffer_bytes, int repeat) {
  using namespace detail;
  require_in_range("karman::perf::measure_copy_bandwidth", "buffer bytes", buffer_bytes, std::size_t(1) << 20,
                   std::size_t(1) << 40);
  require_in_range("karman::perf::measure_copy_bandwidth", "repeat", repeat, 1, 1000);
  // A whole number of packets for every unroll factor.
  const index_t packets = index_t(buffer_bytes / sizeof(Packet16)) / 8 * 8;
  const std::size_t bytes = std::size_t(packets) * sizeof(Packet16);
  Kokkos::View<Packet16*, memory_space> src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "karman::copy_src"),
                                            packets);
  Kokkos::View<Packet16*, memory_space> dst(Kokkos::view_alloc(Kokkos::WithoutInitializing, "karman::copy_dst"),
                                            packets);
  Kokkos::parallel_for("karman::perf::copy_fill", policy(0, packets), FillSource{src});

  CopyBandwidth out;
  out.buffer_bytes = bytes;
  const auto check = [&](const std::string& name) {
    index_t bad = 0;
    Kokkos::parallel_reduce("karman::perf::copy_check", policy(0, packets), CountMismatches{src, dst}, bad);
    if (bad != 0)
      throw std::logic_error("karman::perf: copy kernel " + name + " left " + std::to_string(bad) + " packets wrong");
  };
  const auto run = [&](const std::string& name, const auto& launch) {
    Kokkos::parallel_for("karman::perf::copy_poison", policy(0, packets), Poison{dst});
    out.kernels.push_back({name, time_copy(launch, bytes, repeat)});
    check(name);
  };

  run("float", [&] {
    const index_t floats = packets * index_t(sizeof(Packet16) / sizeof(float));
    FloatCopy copy;
    copy.src = decltype(copy.src)(reinterpret_cast<const float*>(src.data()), std::size_t(floats));
    copy.dst = decltype(copy.dst)(reinterpret_cast<float*>(dst.data()), std::size_t(floats));
    Kokkos::parallel_for("karman::perf::copy_float", policy(0, floats), copy);
  });
  run("packet16x1", [&] {
    Kokkos::parallel_for("karman::perf::copy_packet16x1", policy(0, packets), PacketCopy<1>{src, dst, packets});
  });
  run("packet16x2", [&] {
    Kokkos::parallel_for("karman::perf::copy_packet16x2", policy(0, packets / 2), PacketCopy<2>{src, dst, packets / 2});
  });
  run("packet16x4", [&] {
    Kokkos::parallel_for("karman::perf::copy_packet16x4", policy(0, packets / 4), PacketCopy<4>{src, dst, packets / 4});
  });
  const auto best = std::max_element(out.kernels.begin(), out.kernels.end(),
                                     [](const auto& a, const auto& b) { return a.gbps < b.gbps; });
  out.best_gbps = best->gbps;
  out.best_kernel = best->name;

  const Kokkos::DefaultExecutionSpace space;
  Kokkos::parallel_for("karman::perf::copy_poison", policy(0, packets), Poison{dst});
  out.deep_copy_gbps = time_copy([&] { Kokkos::deep_copy(space, dst, src); }, bytes, repeat);
  check("deep_copy");
  return out;
}

}  // namespace karman::perf
