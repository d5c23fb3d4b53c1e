#include <karman/comm/gpu_aware.hpp>
#include <karman/core/error.hpp>

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace karman::comm {

GpuAwareMode parse_gpu_aware_mode(std::string_view text) {
  if (text == "auto") return GpuAwareMode::automatic;
  if (text == "on") return GpuAwareMode::on;
  if (text == "off") return GpuAwareMode::off;
  throw Error("karman::comm: --mpi-gpu-aware = '" + std::string(text) + "' not one of " +
              std::string(gpu_aware_mode_choices));
}

bool mpi_reports_gpu_aware(DeviceApi api) {
  // MPIX_*_AWARE_SUPPORT only says the library was built with the extension (its value is the
  // build-time answer); the run-time query also reflects how it was started, so ask that.
  switch (api) {
    case DeviceApi::cuda:
#if defined(MPIX_CUDA_AWARE_SUPPORT)
      return MPIX_Query_cuda_support() == 1;
#else
      return false;
#endif
    case DeviceApi::hip:
#if defined(MPIX_ROCM_AWARE_SUPPORT)
      return MPIX_Query_rocm_support() == 1;
#else
      return false;
#endif
    case DeviceApi::none:
      return false;
  }
  return false;
}

bool resolve_gpu_aware(GpuAwareMode mode, DeviceApi api) {
  if (api == DeviceApi::none) return false;
  if (mode == GpuAwareMode::automatic) return mpi_reports_gpu_aware(api);
  return mode == GpuAwareMode::on;
}

}  // namespace karman::comm
