#pragma once
/// \file sparse_bench.hpp
/// `karman bench --grid sparse`: a porosity sweep (Tomczak 2021, Fig. 8: random and regular
/// obstacles, porosity 0.1 to 1) of one solver variant on the dense grid and on the block-sparse
/// grid with memory grouping and with bitmask grouping (Meneghin & Mahmoud Table II). Only fluid
/// voxel updates count, on every grid, so the rates compare the work a user wants done; memory is
/// what each grid holds per fluid voxel. Header-only: the command's library compiles it.

#include <karman/core/error.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/core/geometry/voxel_image.hpp>
#include <karman/core/sparse/block_shape.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/sparse_memory.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>
#include <karman/perf/bench.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace karman::perf {

/// What the porosity sweep runs. Zero means the backend's default (default_edge, default_steps).
struct SparseBenchOptions {
  std::vector<double> porosities{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};  ///< targets in (0, 1]
  std::vector<std::string> samples{"random", "array"};           ///< random sphere packs, simple-cubic arrays
  std::vector<std::string> grids{"dense", "memory", "bitmask"};  ///< dense box, block-sparse groupings
  std::string lattice = "d3q19", precision = "float", layout = "csoa", collision = "bgk", pattern = "ab";
  int n = 0;               ///< sample edge (n^3); 0: default_edge(lattice)
  double radius = 0;       ///< random packs: sphere radius in voxels; 0: n / 16 (at least 2)
  int period = 0;          ///< arrays: cell edge in voxels; 0: n / 4
  std::uint64_t seed = 1;  ///< random packs
  int steps = 0;           ///< timed steps per sample, even; 0: default_steps()
  int warmup = -1;         ///< untimed steps first; negative: steps / 5 (even, at least 2)
  int repeat = 3;          ///< timed samples; the median and the best are reported
};

/// One measured (sample, porosity, grid).
struct SparseBenchRecord {
  std::string sample;                ///< random | array | box (porosity 1: no obstacle)
  double porosity_target = 0;        ///< asked for
  double porosity = 0;               ///< achieved (voxelised)
  std::string grid;                  ///< dense | memory | bitmask
  std::string variant;               ///< lattice/precision/layout/collision/pattern
  int n = 0;                         ///< sample edge
  std::int64_t fluid_voxels = 0;     ///< voxels updated per step (the rates count these only)
  std::int64_t stored_voxels = 0;    ///< voxels the grid holds (dense: n^3)
  std::int64_t blocks = 0;           ///< stored blocks (dense: 0)
  std::int64_t boundary_blocks = 0;  ///< blocks run by the boundary kernel (dense: 0)
  int steps = 0, warmup = 0, repeat = 0;
  double seconds = 0;                ///< median sample time
  double mlups = 0;                  ///< fluid voxel updates per second / 1e6, median sample
  double mlups_max = 0;              ///< fastest sample
  std::size_t memory_bytes = 0;      ///< populations, flags and grid tables the grid holds
  double bytes_per_fluid_voxel = 0;  ///< memory_bytes / fluid_voxels
  double vs_dense = 0;               ///< mlups_max over the dense grid's on the same sample (1 for dense)
  double vs_dense_box = 0;           ///< mlups_max over the dense grid's on the all-fluid box of the same edge
  double sector_fill = 1;            ///< fluid share of the 32-byte sectors holding a fluid voxel (sector_fill())
};

/// The fluid voxels' share of the voxels in the `sector_bytes`-byte memory sectors that hold a
/// fluid voxel, on a block-sparse grid of `B`^3 blocks whose populations are runs of `word_bytes`
/// words (a sector is then B^3 * word_bytes / sector_bytes-th of a run; B^3 voxels at most).
/// Every population of such a sector is read and written whole, so a memory-bound update moves
/// at least 1 / sector_fill times the box's bytes per fluid voxel: sector_fill bounds its rate
/// per fluid voxel, against the all-fluid box, from above (ignoring the flag words and the
/// neighbour table). Blocks that hold no fluid voxel hold no such sector, so the bound depends on
/// the image alone. 1 for an all-fluid image.
template <int B>
double sector_fill(const geometry::VoxelImage& image, int word_bytes, int sector_bytes = 32) {
  using Shape = BlockShape<3, B>;
  const Extents& e = image.extents;
  const int words = std::min(Shape::voxels, std::max(1, sector_bytes / word_bytes));
  std::int64_t fluid = 0, live_sectors = 0;
  for (int bz = 0; bz < e.nz; bz += B)
    for (int by = 0; by < e.ny; by += B)
      for (int bx = 0; bx < e.nx; bx += B)
        for (int first = 0; first < Shape::voxels; first += words) {
          int in_sector = 0;
          for (int l = first; l < first + words; ++l) {
            const int x = bx + Shape::local_coordinate(l, 0), y = by + Shape::local_coordinate(l, 1),
                      z = bz + Shape::local_coordinate(l, 2);
            if (x < e.nx && y < e.ny && z < e.nz && !image.is_solid(x, y, z)) ++in_sector;
          }
          fluid += in_sector;
          live_sectors += in_sector > 0;
        }
  return live_sectors > 0 ? double(fluid) / double(live_sectors * words) : 1.0;
}

namespace detail {

/// Runs `advance` through warmup and `repeat` fenced samples of `steps` steps; sample seconds.
inline std::vector<double> time_samples(const std::function<void(int)>& advance, int steps, int warmup, int repeat) {
  if (warmup > 0) advance(warmup);
  Kokkos::fence();
  std::vector<double> seconds;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    advance(steps);
    Kokkos::fence();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return seconds;
}

/// A sample's solid image: no obstacle at porosity 1, else a random pack or an array.
inline std::shared_ptr<const geometry::VoxelImage> sweep_image(const SparseBenchOptions& o, const std::string& sample,
                                                               double porosity) {
  const Extents box{o.n, o.n, o.n};
  if (porosity >= 1.0) return nullptr;
  if (sample == "random") {
    geometry::RandomPackOptions pack;
    pack.porosity = porosity;
    pack.radius_min = pack.radius_max = o.radius;
    pack.seed = o.seed;
    pack.periodic = {true, true, true};
    return std::make_shared<const geometry::VoxelImage>(geometry::random_sphere_pack(box, pack).image);
  }
  return std::make_shared<const geometry::VoxelImage>(
      geometry::simple_cubic_array_at_porosity(box, o.period, porosity).image);
}

}  // namespace detail

/// Fills the defaults and refuses what cannot run, naming the value and the accepted range.
inline SparseBenchOptions resolved(SparseBenchOptions o) {
  if (o.n == 0) o.n = default_edge(o.lattice);
  if (lbm::lattice_dimension(o.lattice) != 3) {
    throw Error("karman bench --grid sparse: --lattice " + o.lattice +
                " is 2D; the porosity sweep takes d3q19 or d3q27");
  }
  if (o.n % 4 != 0 || o.n < 8) {
    throw Error("karman bench --grid sparse: --n " + std::to_string(o.n) +
                " must be a multiple of 4 (the block edge of a periodic sample), at least 8");
  }
  if (o.steps == 0) o.steps = default_steps();
  if (o.steps % 2 != 0) {
    throw Error("karman bench --grid sparse: --steps " + std::to_string(o.steps) +
                " must be even (AA alternates two step kinds)");
  }
  if (o.warmup < 0) o.warmup = std::max(2, o.steps / 5 / 2 * 2);
  if (o.warmup % 2 != 0) {
    throw Error("karman bench --grid sparse: --warmup " + std::to_string(o.warmup) + " must be even");
  }
  if (o.radius == 0) o.radius = std::max(2.0, o.n / 16.0);
  if (o.period == 0) o.period = std::max(4, o.n / 4);
  if (o.period < 4 || o.n % o.period != 0) {
    throw Error("karman bench --grid sparse: array cell " + std::to_string(o.period) + " must divide --n " +
                std::to_string(o.n) + " and be at least 4");
  }
  for (const double p : o.porosities) {
    if (!(p >= 0.05 && p <= 1.0)) {
      char text[96];
      std::snprintf(text, sizeof text, "karman bench --grid sparse: --porosity %g out of range [0.05, 1]", p);
      throw Error(text);
    }
  }
  if (!lbm::is_sparse_compiled(o.lattice, o.precision, o.layout)) {
    throw Error("karman bench --grid sparse: the block-sparse solver " + o.lattice + "/" + o.precision + "/" +
                o.layout + " is not compiled in (float or double, soa or csoa; see KARMAN_VARIANTS)");
  }
  return o;
}

/// Runs the sweep: for each porosity and sample kind (porosity 1 once, as the obstacle-free box)
/// every grid of `o.grids`; `on_record` sees each record as it is measured.
inline std::vector<SparseBenchRecord> run_sparse_bench(SparseBenchOptions o,
                                                       const std::function<void(const SparseBenchRecord&)>& on_record) {
  o = resolved(o);
  std::vector<SparseBenchRecord> records;
  double dense_box_mlups = 0;
  std::vector<double> porosities = o.porosities;
  // The all-fluid box first: every other rate is set against its dense rate.
  std::sort(porosities.begin(), porosities.end(), [](double a, double b) { return a > b; });
  for (const double target : porosities) {
    for (const std::string& sample : o.samples) {
      if (target >= 1.0 && sample != o.samples.front()) continue;  // one obstacle-free box
      const auto image = detail::sweep_image(o, sample, target);
      lbm::SolverSetup setup;
      setup.variant = lbm::Variant{o.lattice, o.precision, o.layout, o.collision, o.pattern};
      setup.global = {o.n, o.n, o.n};
      setup.periodic = {true, true, true};
      setup.relaxation.omega = 1.0 / 0.8;
      if (image) {
        setup.geometry = [image](int x, int y, int z) {
          return image->is_solid(x, y, z) ? lbm::CellSpec{lbm::CellKind::solid, 0} : lbm::CellSpec{};
        };
      }
      // At rest the update does the same arithmetic and moves the same bytes as in flow.
      double dense_mlups = 0;
      // The sweep's precisions are float and double (resolved()).
      const int word_bytes = o.precision == "double" ? 8 : 4;
      const double fill = image ? sector_fill<lbm::sparse_block_edge<3>>(*image, word_bytes) : 1.0;
      for (const std::string& grid : o.grids) {
        SparseBenchRecord r;
        r.sample = image ? sample : "box";
        r.porosity_target = target;
        r.porosity = image ? image->porosity() : 1.0;
        r.grid = grid;
        r.variant = o.lattice + "/" + o.precision + "/" + o.layout + "/" + o.collision + "/" + o.pattern;
        r.n = o.n;
        r.steps = o.steps;
        r.warmup = o.warmup;
        r.repeat = o.repeat;
        r.sector_fill = fill;
        std::vector<double> seconds;
        if (grid == "dense") {
          const auto solver = lbm::make_solver(setup);
          r.fluid_voxels = image ? image->fluid_voxels() : setup.global.size();
          r.stored_voxels = setup.global.size();
          // Populations, and a flag word per voxel where the box has walls.
          r.memory_bytes =
              solver->population_bytes() + (image ? std::size_t(r.stored_voxels) * sizeof(lbm::flag_t) : 0);
          seconds = detail::time_samples([&](int s) { solver->advance(s); }, o.steps, o.warmup, o.repeat);
        } else {
          const auto grouping = grid == "bitmask" ? BlockGrouping::bitmask : BlockGrouping::memory;
          const lbm::SparseMemoryEstimate memory = lbm::estimate_sparse_memory(setup);
          const auto solver = lbm::make_sparse_solver(setup, grouping);
          const lbm::GridCounts counts = solver->grid_counts();
          r.fluid_voxels = counts.fluid_voxels;
          r.stored_voxels = solver->owned_box().local_voxels;
          r.blocks = counts.blocks;
          r.boundary_blocks = counts.boundary_blocks;
          r.memory_bytes = memory.persistent_bytes();
          seconds = detail::time_samples([&](int s) { solver->advance(s); }, o.steps, o.warmup, o.repeat);
        }
        std::vector<double> sorted = seconds;
        std::sort(sorted.begin(), sorted.end());
        r.seconds = sorted[sorted.size() / 2];
        r.mlups = double(r.fluid_voxels) * o.steps / r.seconds / 1e6;
        r.mlups_max = double(r.fluid_voxels) * o.steps / sorted.front() / 1e6;
        r.bytes_per_fluid_voxel = r.fluid_voxels > 0 ? double(r.memory_bytes) / double(r.fluid_voxels) : 0.0;
        if (grid == "dense") dense_mlups = r.mlups_max;
        if (grid == "dense" && !image) dense_box_mlups = r.mlups_max;
        r.vs_dense = dense_mlups > 0 ? r.mlups_max / dense_mlups : 0.0;
        r.vs_dense_box = dense_box_mlups > 0 ? r.mlups_max / dense_box_mlups : 0.0;
        records.push_back(r);
        if (on_record) on_record(r);
      }
    }
  }
  return records;
}

/// Column titles of sparse_table_row.
inline std::string sparse_table_header() {
  return "sample  porosity  grid      fluid voxels   blocks  boundary   MLUPS(fluid)    best   bytes/fluid voxel  "
         "vs dense  vs dense box  sector fill\n";
}

/// One record as a table row.
inline std::string sparse_table_row(const SparseBenchRecord& r) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%-6s  %8.3f  %-8s  %12lld  %7lld  %8lld  %13.1f  %6.1f  %17.1f  %8.2f  %12.2f  %11.3f\n",
                r.sample.c_str(), r.porosity, r.grid.c_str(), static_cast<long long>(r.fluid_voxels),
                static_cast<long long>(r.blocks), static_cast<long long>(r.boundary_blocks), r.mlups, r.mlups_max,
                r.bytes_per_fluid_voxel, r.vs_dense, r.vs_dense_box, r.sector_fill);
  return line;
}

/// Writes the records as a JSON array (the fields of SparseBenchRecord) to `path`; throws
/// karman::Error when the file cannot be written.
inline void write_sparse_json(const std::string& path, const std::vector<SparseBenchRecord>& records) {
  std::ofstream out(path);
  if (!out) throw Error("karman bench: cannot write --json '" + path + "'");
  out << "[\n";
  for (std::size_t i = 0; i < records.size(); ++i) {
    const SparseBenchRecord& r = records[i];
    char text[1024];
    std::snprintf(text, sizeof text,
                  "  {\"sample\": \"%s\", \"porosity_target\": %.6g, \"porosity\": %.6g, \"grid\": \"%s\", "
                  "\"variant\": \"%s\", \"n\": %d, \"fluid_voxels\": %lld, \"stored_voxels\": %lld, \"blocks\": %lld, "
                  "\"boundary_blocks\": %lld, \"steps\": %d, \"warmup\": %d, \"repeat\": %d, \"seconds\": %.6g, "
                  "\"mlups\": %.6g, \"mlups_max\": %.6g, \"memory_bytes\": %zu, \"bytes_per_fluid_voxel\": %.6g, "
                  "\"vs_dense\": %.6g, \"vs_dense_box\": %.6g, \"sector_fill\": %.6g}%s\n",
                  r.sample.c_str(), r.porosity_target, r.porosity, r.grid.c_str(), r.variant.c_str(), r.n,
                  static_cast<long long>(r.fluid_voxels), static_cast<long long>(r.stored_voxels),
                  static_cast<long long>(r.blocks), static_cast<long long>(r.boundary_blocks), r.steps, r.warmup,
                  r.repeat, r.seconds, r.mlups, r.mlups_max, r.memory_bytes, r.bytes_per_fluid_voxel, r.vs_dense,
                  r.vs_dense_box, r.sector_fill, i + 1 < records.size() ? "," : "");
    out << text;
  }
  out << "]\n";
  if (!out) throw Error("karman bench: writing --json '" + path + "' failed");
}

}  // namespace karman::perf
