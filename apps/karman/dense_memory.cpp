#include "dense_memory.hpp"
#include "case_runner.hpp"
#include "host_memory.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/lbm/variants.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace karman::app {
namespace {

/// Ranks of this run on this node, from the launcher's environment (1 when unknown).
int ranks_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* value = std::getenv(name)) {
      const int n = std::atoi(value);
      if (n > 0) return n;
    }
  }
  return 1;
}

}  // namespace

void check_dense_memory(const lbm::SolverSetup& setup, int ranks) {
  const auto& v = setup.variant;
  const double q = lbm::lattice_populations(v.lattice);
  const double value_bytes = lbm::precision_bytes(v.precision);
  const double lattices = v.pattern == "aa" ? 1 : 2;
  const Extents& g = setup.global;
  const int axis_planes = g.nz > 1 ? g.nz : g.ny;
  const double plane = g.nz > 1 ? double(g.nx) * g.ny : double(g.nx);
  double voxels_per_rank = (std::ceil(double(axis_planes) / ranks) + 2) * plane;
  if (setup.process_grid[0] > 0) {
    // A block: the largest share along each axis, with a halo on both sides where cut (and
    // along the slab axis, which keeps its halo, cartesian_partition.hpp).
    voxels_per_rank = 1;
    for (int a = 0; a < 3; ++a) {
      const int n = g.extent(a), d = setup.process_grid[std::size_t(a)];
      voxels_per_rank *= std::ceil(double(n) / d) + (d > 1 || a == g.slab_axis() ? 2 : 0);
    }
  }
  const double bytes_per_voxel = q * value_bytes * lattices + 4 + 2 * 32;
  const double need = voxels_per_rank * bytes_per_voxel;
  const auto info = backend_info();
  const bool device = !std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>;
  const MemoryLimit host = smallest_memory_limit(read_memory_readings());
  const double have = device ? info.device_memory_gib * 1073741824.0 : host.bytes / ranks_on_this_node();
  if (have > 0 && need > have) {
    char detail[256];
    std::snprintf(detail, sizeof detail, "%.3g voxels per rank x %.0f bytes (%s, %s, %s)", voxels_per_rank,
                  bytes_per_voxel, v.lattice.name().c_str(), v.precision.name().c_str(), v.pattern.name().c_str());
    throw Error("the box " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                " needs about " + readable_bytes(need) + " of " + (device ? "device" : "host") + " memory per rank (" +
                detail + "), but " + readable_bytes(have) + " are available (" +
                (device ? std::string("device memory") : host.source) +
                "); use a smaller size, --precision float or fp16s, --pattern aa or more ranks");
  }
}

}  // namespace karman::app
