#pragma once
/// \file gpu_aware.hpp
/// Whether MPI is handed device pointers directly (GPU-aware MPI) or device data is staged
/// through pinned host memory (docs/scaling.md, the overlapped step).

#include <karman/comm/device_memory.hpp>

#include <string>
#include <string_view>

namespace karman::comm {

/// The `--mpi-gpu-aware auto|on|off` setting.
enum class GpuAwareMode : int {
  automatic = 0,  ///< ask the MPI library at run time (MPIX_Query_cuda_support and kin)
  on = 1,         ///< trust that MPI accepts device pointers
  off = 2         ///< always stage device data through pinned host memory
};

/// Accepted spellings of GpuAwareMode, for help texts and errors.
inline constexpr std::string_view gpu_aware_mode_choices = "auto|on|off";

/// The spelling of a mode on the command line ("auto", "on", "off").
constexpr std::string_view name(GpuAwareMode mode) {
  return mode == GpuAwareMode::automatic ? "auto" : (mode == GpuAwareMode::on ? "on" : "off");
}

/// Parses "auto", "on" or "off"; throws karman::Error naming the value and the choices otherwise.
GpuAwareMode parse_gpu_aware_mode(std::string_view text);

/// What the MPI library reports at run time about accepting `api` device pointers: the
/// OpenMPI extension queries (mpi-ext.h) where present, false where MPI cannot tell.
bool mpi_reports_gpu_aware(DeviceApi api);

/// Whether device memory of `api` is handed to MPI directly under `mode`. Host-accessible
/// memory (DeviceApi::none) never needs either, so the answer there is false.
bool resolve_gpu_aware(GpuAwareMode mode, DeviceApi api);

}  // namespace karman::comm
