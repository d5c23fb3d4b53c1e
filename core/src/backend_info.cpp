#include <karman/core/backend_traits.hpp>
#include <karman/core/kokkos_compat.hpp>

#include <unistd.h>
#include <fstream>
#include <sstream>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

namespace karman {
namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

double host_memory_gib() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? double(pages) * double(page_size) / (1024.0 * 1024.0 * 1024.0) : 0.0;
}

std::string enabled_backends() {
  std::ostringstream s;
  const char* sep = "";
#if defined(KOKKOS_ENABLE_SERIAL)
  s << sep << "Serial";
  sep = ",";
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  s << sep << "OpenMP";
  sep = ",";
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  s << sep << "Threads";
  sep = ",";
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  s << sep << "Cuda";
  sep = ",";
#endif
#if defined(KOKKOS_ENABLE_HIP)
  s << sep << "HIP";
  sep = ",";
#endif
  return s.str();
}

}  // namespace

BackendInfo backend_info() {
  BackendInfo info;
  info.kokkos_version = compat::kokkos_version_string();
  info.enabled_backends = enabled_backends();
  info.default_backend = Kokkos::DefaultExecutionSpace::name();
  info.device_name = cpu_model();
  info.device_memory_gib = host_memory_gib();
  info.concurrency = Kokkos::DefaultExecutionSpace().concurrency();
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    info.device_name = prop.name;
    info.device_memory_gib = double(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  }
#elif defined(KOKKOS_ENABLE_HIP)
  int device = 0;
  hipDeviceProp_t prop{};
  if (hipGetDevice(&device) == hipSuccess && hipGetDeviceProperties(&prop, device) == hipSuccess) {
    info.device_name = prop.name;
    info.device_memory_gib = double(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  }
#endif
  return info;
}

}  // namespace karman
