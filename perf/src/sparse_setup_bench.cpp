// The set-up of a block-sparse grid for a porous sample (issue 50, item 3): a random sphere pack
// generated, checked and classified into the rank's part of the grid, the grid's tables built and
// the flag words of its stored voxels computed, as SparseSolverCore does before it allocates
// populations. Each phase's wall time and the process's peak resident memory after it, the
// slowest and largest rank's, as one JSON line (docs/performance.md). Under mpirun each rank
// takes the block planes a slab partition of the block lattice gives it, as `karman porous` does.
//
//   karman_sparse_setup_bench --n 1024 --porosity 0.1 [--radius 4] [--seed 1]
#include <karman/core/dense/partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/lbm/cases/porous.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/population_access.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/sparse_sample.hpp>
#include <karman/lbm/velocity_set.hpp>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include "host_memory.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <mpi.h>
#endif

namespace {

using namespace karman;
using Grid = BlockSparseGrid<3, lbm::sparse_block_edge<3>, Kokkos::HostSpace>;

struct Options {
  int n = 256;
  double porosity = 0.5;
  double radius = 4;
  unsigned long long seed = 1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw Error("karman_sparse_setup_bench: " + arg + " needs a value");
    const char* value = argv[++i];
    if (arg == "--n") {
      o.n = std::atoi(value);
    } else if (arg == "--porosity") {
      o.porosity = std::atof(value);
    } else if (arg == "--radius") {
      o.radius = std::atof(value);
    } else if (arg == "--seed") {
      o.seed = std::strtoull(value, nullptr, 10);
    } else {
      throw Error("karman_sparse_setup_bench: unknown option " + arg +
                  " (accepted: --n, --porosity, --radius, --seed)");
    }
  }
  require_in_range("karman_sparse_setup_bench", "--n", o.n, 8, 4096);
  return o;
}

/// Wall time and peak memory at the end of each phase.
struct Phases {
  std::vector<std::string> names;
  std::vector<double> seconds, peak_bytes;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void end(const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    names.push_back(name);
    seconds.push_back(std::chrono::duration<double>(now - start).count());
    peak_bytes.push_back(app::peak_resident_bytes());
    start = now;
  }
};

/// The largest value over ranks (in place), or the sum.
void reduce(std::vector<double>& values, bool sum) {
#if KARMAN_ENABLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), MPI_DOUBLE, sum ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
#else
  (void)values;
  (void)sum;
#endif
}

int run(int argc, char** argv, int rank, int ranks) {
  const Options o = parse(argc, argv);
  Phases phases;
  const Extents box{o.n, o.n, o.n};
  geometry::RandomPackOptions pack_options;
  pack_options.porosity = o.porosity;
  pack_options.radius_min = pack_options.radius_max = o.radius;
  pack_options.seed = o.seed;
  auto pack = geometry::random_sphere_pack(box, pack_options);
  const double porosity = pack.porosity;
  const auto image = std::make_shared<const geometry::VoxelImage>(std::move(pack.image));
  phases.end("pack");

  lbm::Variant variant;
  variant.lattice = "d3q19";
  variant.precision = "float";
  variant.layout = "csoa";
  lbm::SolverSetup setup = lbm::cases::porous_setup(image, lbm::cases::PorousParams{}, variant);
  setup.rank = rank;
  setup.ranks = ranks;
  phases.end("setup");

  const Extents lattice = Grid::block_lattice(box);
  OwnedBlockPlanes owned{0, lattice.nz};
  if (ranks > 1) {
    const SlabPartition part(lattice, rank, ranks, 1, true);
    owned = {part.owned_begin(), part.owned_planes()};
  }
  constexpr int B = Grid::block_edge;
  const lbm::SparseSample sample(setup, lbm::velocity_set<lbm::D3Q19>(),
                                 {(owned.begin - 1) * B, (owned.count + 2) * B});
  phases.end("sample");

  const Grid grid = lbm::sparse_grid<Grid>("bench_grid", sample, owned, BlockGrouping::memory);
  phases.end("grid");

  std::vector<lbm::flag_t> flags(std::size_t(grid.voxel_count()), lbm::outside_flag);
  for (block_index_t b = 0; b < grid.block_count(); ++b) {
    const std::array<int, 3> origin = grid.origin(b);
    for (int l = 0; l < Grid::block_voxels; ++l) {
      if (!((grid.mask(b) >> l) & 1u)) continue;
      flags[std::size_t(b) * Grid::block_voxels + std::size_t(l)] = sample.flag(
          origin[0] + Grid::shape_type::local_coordinate(l, 0), origin[1] + Grid::shape_type::local_coordinate(l, 1),
          origin[2] + Grid::shape_type::local_coordinate(l, 2));
    }
  }
  std::uint64_t fingerprint = 0;
  for (const lbm::flag_t f : flags) fingerprint = fingerprint * 1099511628211ull + f;
  phases.end("flags");

  std::vector<double> seconds = phases.seconds, peaks = phases.peak_bytes;
  std::vector<double> counts = {double(grid.owned_blocks().size()), double(grid.boundary_block_count()),
                                double(grid.active_voxel_count()), double(grid.host_bytes()),
                                double(fingerprint % 1000003)};
  reduce(seconds, false);
  reduce(peaks, false);
  reduce(counts, true);
  if (rank == 0) {
    nlohmann::json j;
    j["n"] = o.n;
    j["target_porosity"] = o.porosity;
    j["porosity"] = porosity;
    j["radius"] = o.radius;
    j["seed"] = o.seed;
    j["ranks"] = ranks;
    double total = 0;
    for (std::size_t p = 0; p < seconds.size(); ++p) {
      j["phases"][phases.names[p]] = {{"seconds_max", seconds[p]}, {"peak_resident_bytes_max", peaks[p]}};
      total += seconds[p];
    }
    j["seconds_total_of_max"] = total;
    j["owned_blocks"] = counts[0];
    j["boundary_blocks"] = counts[1];
    j["active_voxels"] = counts[2];
    j["grid_host_bytes"] = counts[3];
    j["flags_checksum"] = counts[4];
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int rank = 0, ranks = 1;
#if KARMAN_ENABLE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
  int code = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    try {
      code = run(argc, argv, rank, ranks);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      code = 1;
    }
  }
#if KARMAN_ENABLE_MPI
  MPI_Finalize();
#endif
  return code;
}
