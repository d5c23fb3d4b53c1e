#include "commands.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/version.hpp>

#include <cstdio>

namespace karman::app {

void print_backend_info() {
  const auto info = backend_info();
  std::printf("karman %s (commit %s)\n", KARMAN_VERSION_STRING, KARMAN_GIT_COMMIT);
  std::printf("  Kokkos version     %s\n", info.kokkos_version.c_str());
  std::printf("  enabled backends   %s\n", info.enabled_backends.c_str());
  std::printf("  default backend    %s\n", info.default_backend.c_str());
  std::printf("  device             %s\n", info.device_name.c_str());
  std::printf("  device memory      %.1f GiB\n", info.device_memory_gib);
  std::printf("  concurrency        %d threads\n", info.concurrency);
}

}  // namespace karman::app
