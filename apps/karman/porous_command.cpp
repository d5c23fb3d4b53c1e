// `karman porous`: flow through a porous sample on the block-sparse solver (docs/block_sparse.md),
// driven by a body force or by a pressure difference between the inlet and outlet planes, and
// the sample's permeability by Darcy's law. The sample is a random
// sphere pack, a simple-cubic sphere array (Zick & Homsy 1982) or a voxel image file; every
// check of the input (options, image file, dimensions, fluid path, output directory) comes
// before the solver allocates, and the output directory is created only after them.
#include "case_commands.hpp"
#include "case_runner.hpp"
#include "host_memory.hpp"
#include "run_options.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/geometry/raw_image.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/io/field_writer.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/io/voxel_image_file.hpp>
#include <karman/lbm/cases/porous.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/sparse_memory.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace karman::app {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

/// Solid fraction of touching spheres in a simple-cubic array, pi / 6: beyond it the spheres
/// overlap, which Zick & Homsy's table does not cover.
constexpr double touching_fraction = 0.5235987755982988;

/// Options of the command.
struct PorousOptions {
  int n = 64;  ///< sample edge of generated samples (the array's cell edge)
  // Random sphere pack.
  double porosity = 0.5;
  std::uint64_t seed = 1;
  double radius = 4;
  // Simple-cubic array.
  std::string array;
  double solid_fraction = 0;
  // Voxel image file.
  std::string geometry;
  std::vector<int> dims;
  std::string dataset;
  std::string encoding = "nonzero_is_solid";
  double voxel_size = 1;
  // Flow and numerics.
  std::string sides = "periodic";
  std::string drive = "body-force";
  bool delta_rho_given = false;  ///< --delta-rho on the command line (else: the --force equivalent)
  lbm::cases::PorousParams flow;
  lbm::Variant variant{"d3q19", "double", "csoa", "trt", "ab"};
  std::string grouping = "memory";
  // Run.
  long steps = 0;
  double until_steady = 0;
  long max_steps = 1000000;
  long check_every = 100;
  std::string output = "karman-output";
  bool overwrite = false;
  bool no_fields = false;
  bool quiet = false;
  bool estimate_memory = false;  ///< print the memory estimate and stop
  double memory_limit = 0;       ///< bytes the run may take; 0: what the device (host) offers
};

/// The sample described by the options, read or generated; throws karman::Error for bad input.
struct Sample {
  std::shared_ptr<const geometry::VoxelImage> image;
  std::string kind;  ///< random-pack | simple-cubic | file
  nlohmann::json description;
};

bool is_hdf5(const std::string& path) {
  auto ends = [&](const std::string& tail) {
    return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".h5") || ends(".hdf5") || ends(".hdf");
}

Sample make_sample(const PorousOptions& o) {
  Sample s;
  const auto encoding = o.encoding == "zero_is_solid" ? geometry::VoxelEncoding::zero_is_solid
                                                      : geometry::VoxelEncoding::nonzero_is_solid;
  if (!o.geometry.empty()) {
    std::optional<Extents> dims;
    if (!o.dims.empty()) {
      if (o.dims.size() != 3) {
        throw Error("karman porous: --dims takes three extents NX,NY,NZ, got " + std::to_string(o.dims.size()));
      }
      dims = Extents{o.dims[0], o.dims[1], o.dims[2]};
    }
    geometry::VoxelImage image;
    if (is_hdf5(o.geometry)) {
      if (o.dataset.empty()) throw Error("karman porous: --geometry '" + o.geometry + "' is HDF5; give --dataset NAME");
      image = io::read_hdf5_voxel_image({o.geometry, o.dataset, o.voxel_size, encoding, dims});
    } else {
      if (!dims) {
        throw Error("karman porous: --geometry '" + o.geometry +
                    "' is a raw file (no .h5/.hdf5 ending); give its --dims NX,NY,NZ");
      }
      image = geometry::read_raw_image({o.geometry, *dims, o.voxel_size, encoding});
    }
    s.kind = "file";
    s.description = {
        {"file", o.geometry}, {"dataset", o.dataset}, {"encoding", o.encoding}, {"voxel_size", o.voxel_size}};
    s.image = std::make_shared<const geometry::VoxelImage>(std::move(image));
    return s;
  }
  require_in_range("karman porous", "--n", o.n, 8, 1 << 12);
  const Extents box{o.n, o.n, o.n};
  if (!o.array.empty()) {
    if (!(o.solid_fraction > 0 && o.solid_fraction <= touching_fraction)) {
      char text[128];
      std::snprintf(text, sizeof text, "karman porous: --solid-fraction %g out of range (0, %.4f] (touching spheres)",
                    o.solid_fraction, touching_fraction);
      throw Error(text);
    }
    auto pack = geometry::simple_cubic_array_at_porosity(box, o.n, 1.0 - o.solid_fraction, o.voxel_size);
    s.kind = "simple-cubic";
    s.description = {{"array", o.array},
                     {"cell", o.n},
                     {"solid_fraction_target", o.solid_fraction},
                     {"solid_fraction", 1.0 - pack.porosity},
                     {"sphere_voxel_radius", pack.spheres.empty() ? 0.0 : pack.spheres.front().radius}};
    s.image = std::make_shared<const geometry::VoxelImage>(std::move(pack.image));
    return s;
  }
  // The Darcy permeability of an empty box is infinite, so a pack needs some solid.
  if (!(o.porosity >= 0.01 && o.porosity <= 0.99)) {
    char text[96];
    std::snprintf(text, sizeof text, "karman porous: --porosity %g out of range [0.01, 0.99]", o.porosity);
    throw Error(text);
  }
  if (!(o.radius >= 1 && o.radius <= o.n / 2.0)) {
    char text[128];
    std::snprintf(text, sizeof text, "karman porous: --radius %g out of range [1, %g] (half of --n)", o.radius,
                  o.n / 2.0);
    throw Error(text);
  }
  geometry::RandomPackOptions pack_options;
  pack_options.porosity = o.porosity;
  pack_options.radius_min = pack_options.radius_max = o.radius;
  pack_options.seed = o.seed;
  pack_options.periodic = {true, o.sides == "periodic", o.sides == "periodic"};
  pack_options.voxel_size = o.voxel_size;
  auto pack = geometry::random_sphere_pack(box, pack_options);
  s.kind = "random-pack";
  s.description = {{"n", o.n},
                   {"porosity_target", o.porosity},
                   {"seed", o.seed},
                   {"radius", o.radius},
                   {"spheres", pack.spheres.size()}};
  s.image = std::make_shared<const geometry::VoxelImage>(std::move(pack.image));
  return s;
}

/// The density, velocity and a solid marker of every voxel of the box (x fastest), from the
/// sparse solver's moments: voxels of blocks the grid does not store are solid.
struct BoxFields {
  std::vector<double> rho, u[3], solid;
};

/// True when the solver's memory space is not the host's (a GPU).
constexpr bool device_memory = !std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>;

/// Bytes the run may take in the memory that holds the solver, and where that figure comes from.
struct MemoryBudget {
  double bytes = 0;  ///< 0: unknown (then nothing is refused)
  std::string source;
};

MemoryBudget memory_budget(const PorousOptions& o) {
  if (o.memory_limit > 0) return {o.memory_limit, "--memory-limit"};
  if (device_memory) return {backend_info().device_memory_gib * 1073741824.0, "device memory"};
  const MemoryLimit host = smallest_memory_limit(read_memory_readings());
  return {host.bytes, host.source};
}

/// The run's memory in the space that holds the solver: on a GPU the device's peak; on a CPU
/// backend, where the device is the host, that plus the host tables of the construction and the
/// box-sized fields written at the end.
struct MemoryNeed {
  lbm::SparseMemoryEstimate estimate;
  double output_bytes = 0;  ///< density, velocity and solid marker of every voxel of the box, on the host
  double host_bytes = 0;    ///< estimate.host_bytes + output_bytes
  double total = 0;         ///< what is compared with the budget
};

MemoryNeed memory_need(const lbm::SolverSetup& setup, bool no_fields) {
  MemoryNeed m;
  m.estimate = lbm::estimate_sparse_memory(setup);
  m.output_bytes = no_fields ? 0.0 : 5.0 * sizeof(double) * double(setup.global.size());
  m.host_bytes = double(m.estimate.host_bytes) + m.output_bytes;
  m.total = double(m.estimate.peak_bytes()) + (device_memory ? 0.0 : m.host_bytes);
  return m;
}

/// The owned voxels' moments of `solver` on rank 0 as fields of the whole box (solid voxels 0,
/// `solid` 1 there), gathered from every rank; empty vectors on the other ranks.
BoxFields gather_to_box(lbm::SparseFlowSolver& solver, const geometry::VoxelImage& image, const comm::Ranks& ranks) {
  const auto m = solver.block_moments();
  const auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  const Extents& e = image.extents;
  // (voxel of the box, rho, ux, uy, uz) of each owned fluid voxel.
  std::vector<double> owned;
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x) {
        const auto k = std::size_t(e.index(x, y, z));
        const index_t v = solver.voxel_index(x, y, z);
        if (image.solid[k] || v == absent_voxel) continue;
        owned.insert(owned.end(), {double(k), rho(v), u(v, 0), u(v, 1), u(v, 2)});
      }
  const std::vector<double> all = ranks.gather(owned);
  BoxFields f;
  if (!ranks.root()) return f;
  const auto n = std::size_t(e.size());
  f.rho.assign(n, 0.0);
  f.solid.assign(n, 1.0);
  for (auto& c : f.u) c.assign(n, 0.0);
  for (std::size_t r = 0; r < all.size(); r += 5) {
    const auto k = std::size_t(all[r]);
    f.solid[k] = 0.0;
    f.rho[k] = all[r + 1];
    for (std::size_t d = 0; d < 3; ++d) f.u[d][k] = all[r + 2 + d];
  }
  return f;
}

/// Runs the case on every rank of `ranks` (the block planes divided between them); rank 0
/// prints and writes. Returns the exit code.
int run_porous_on_ranks(const PorousOptions& o, const comm::Ranks& ranks) {
  const auto t_setup = clock::now();
  const std::filesystem::path dir = o.output;
  const bool root = ranks.root();
  // Everything that can fail on bad input, before anything is allocated or written.
  if (o.steps == 0 && o.until_steady == 0 && !o.estimate_memory) {
    throw Error("karman porous: give --steps S or --until-steady TOL (or --estimate-memory)");
  }
  try {
    lbm::require_compiled(o.variant, lbm::CompiledGrid::block_sparse);
  } catch (const Error& e) {
    throw Error(std::string("karman porous: ") + e.what());
  }
  const MemoryBudget budget = memory_budget(o);
  // A generated sample's image takes a byte a voxel, twice (the image and the solver's
  // classification of it), before the solver's own estimate can be made: refused first.
  if (o.geometry.empty() && budget.bytes > 0 && 2.0 * std::pow(double(o.n), 3) > budget.bytes) {
    throw Error("karman porous: --n " + std::to_string(o.n) + " makes a sample image of about " +
                readable_bytes(2.0 * std::pow(double(o.n), 3)) +
                " (2 bytes a voxel) before the solver, more than the " + readable_bytes(budget.bytes) + " of " +
                budget.source + "; use a smaller --n");
  }
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw Error("karman porous: --output '" + dir.string() + "' exists and is not a directory");
  }
  if (!o.overwrite && !o.estimate_memory) {
    std::string earlier;
    for (const auto& name : io::earlier_run_files(dir)) earlier += (earlier.empty() ? "" : ", ") + name;
    if (!earlier.empty()) {
      throw Error("karman porous: --output '" + dir.string() + "' holds an earlier run's files (" + earlier +
                  "); give --overwrite to replace them or another --output");
    }
  }
  lbm::cases::PorousParams flow = o.flow;
  flow.periodic = {true, o.sides == "periodic", o.sides == "periodic"};
  const bool pressure = o.drive == "pressure";
  if (o.delta_rho_given && !pressure) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "karman porous: --delta-rho %g needs --drive pressure (the body-force drive takes --force)",
                  o.flow.delta_rho);
    throw Error(text);
  }
  if (pressure) flow.drive = lbm::cases::PorousDrive::pressure;
  const Sample sample = make_sample(o);
  if (pressure && !o.delta_rho_given) {
    // The same drive as --force: cs^2 delta_rho / (nx - 1) = g.
    flow.delta_rho = lbm::cases::equivalent_delta_rho(o.flow.force, sample.image->extents.nx);
    if (!(flow.delta_rho > 0 && flow.delta_rho <= lbm::cases::max_delta_rho)) {
      char text[192];
      std::snprintf(text, sizeof text,
                    "karman porous: --force %g over %d voxels means --delta-rho %g, out of range (0, %g]; give "
                    "--delta-rho in that range",
                    o.flow.force, sample.image->extents.nx, flow.delta_rho, lbm::cases::max_delta_rho);
      throw Error(text);
    }
  }
  lbm::SolverSetup setup = lbm::cases::porous_setup(sample.image, flow, o.variant);
  setup.rank = ranks.rank();
  setup.ranks = ranks.size();
  setup.communicator = ranks;
  // 16- and 32-bit storage resolve rho ~ 1 to 1e-3 and 1e-7: a density difference near that many units
  // of the last place turns the measured gradient and k into rounding (docs/validation.md).
  if (root && pressure && lbm::precision_bytes(o.variant.precision.name()) < 8 && flow.delta_rho < 1e-3) {
    std::fprintf(stderr,
                 "karman: warning: --delta-rho %g in %s storage is close to its rounding of rho ~ 1; give "
                 "--delta-rho 1e-3 or more\n",
                 flow.delta_rho, o.variant.precision.name().c_str());
  }
  const auto grouping = o.grouping == "bitmask" ? BlockGrouping::bitmask : BlockGrouping::memory;

  // The memory of the run from the blocks the sample fills, before the solver allocates any: on
  // several ranks each holds about its share of the blocks (and two halo block planes), so the
  // share is what is compared with the memory there.
  const MemoryNeed need = memory_need(setup, o.no_fields);
  const double share = need.total / ranks.size();
  const lbm::SparseMemoryEstimate& est = need.estimate;
  if (root) {
    std::printf(
        "karman porous: memory estimate %s: %lld blocks, populations %s + flags %s + grid %s = %s (%.0f bytes per "
        "fluid voxel), peak %s%s%s; %s available (%s)\n",
        readable_bytes(need.total).c_str(), static_cast<long long>(est.blocks),
        readable_bytes(double(est.population_bytes)).c_str(), readable_bytes(double(est.flag_bytes)).c_str(),
        readable_bytes(double(est.grid_bytes)).c_str(), readable_bytes(double(est.persistent_bytes())).c_str(),
        est.bytes_per_fluid_voxel(), readable_bytes(double(est.peak_bytes())).c_str(), device_memory ? "" : " + host ",
        device_memory ? "" : readable_bytes(need.host_bytes).c_str(),
        budget.bytes > 0 ? readable_bytes(budget.bytes).c_str() : "unknown", budget.source.c_str());
    if (ranks.size() > 1)
      std::printf("  each of %d ranks holds about %s\n", ranks.size(), readable_bytes(share).c_str());
    std::fflush(stdout);
  }
  if (budget.bytes > 0 && share > budget.bytes) {
    throw Error(
        "karman porous: " +
        (ranks.size() > 1 ? "each of " + std::to_string(ranks.size()) + " ranks needs" : std::string("the run needs")) +
        " about " + readable_bytes(share) + " of " + (device_memory ? "device" : "host") + " memory (" +
        std::to_string(est.blocks) + " blocks: populations " + readable_bytes(double(est.population_bytes)) +
        ", flags " + readable_bytes(double(est.flag_bytes)) + ", grid " + readable_bytes(double(est.grid_bytes)) +
        ", transient " + readable_bytes(double(est.peak_bytes() - est.persistent_bytes())) +
        (device_memory ? "" : ", host tables and output " + readable_bytes(need.host_bytes)) + "), more than the " +
        readable_bytes(budget.bytes) + " of " + budget.source +
        "; use --precision float, --pattern aa, --no-fields, more ranks or a smaller sample");
  }
  // On a GPU the host holds the construction's tables and the output fields beside it.
  const double host_available = device_memory ? available_host_bytes() : 0.0;
  if (device_memory && host_available > 0 && need.host_bytes > host_available) {
    throw Error("karman porous: the run needs about " + readable_bytes(need.host_bytes) +
                " of host memory (the construction's host tables and the output fields), more than the " +
                readable_bytes(host_available) + " available; use --no-fields or a smaller sample");
  }
  if (o.estimate_memory) return 0;

  auto solver = lbm::make_sparse_solver(setup, grouping);
  const auto lock = ranks.run([&] { return claim_output_directory(dir, root, o.overwrite); });
  const geometry::VoxelImage& image = *sample.image;
  const Extents& e = image.extents;
  const double voxels = double(e.size()), fluid = ranks.sum(double(solver->fluid_voxels()));
  const double blocks = ranks.sum(double(solver->block_count()));
  const double boundary_blocks = ranks.sum(double(solver->boundary_block_count()));
  const double nu = lbm::cases::viscosity(flow);
  // What Darcy's law divides by while the run goes on: g, or the imposed G / rho0 of a pressure
  // drive (the summary uses the gradient measured at the end).
  const double imposed_gradient = pressure ? flow.delta_rho / (3.0 * (e.nx - 1)) : flow.force;
  if (root) {
    std::printf("karman porous: %dx%dx%d voxels (%s, porosity %.4f, %.0f stored blocks, %.0f boundary), %s, %s", e.nx,
                e.ny, e.nz, sample.kind.c_str(), image.porosity(), blocks, boundary_blocks,
                solver->description().c_str(), Kokkos::DefaultExecutionSpace::name());
    if (ranks.size() > 1) std::printf(", %d ranks (block planes along %c)", ranks.size(), "xyz"[e.dimension() - 1]);
    std::printf("\n");
  }
  char drive_text[128];
  if (pressure) {
    std::snprintf(drive_text, sizeof drive_text, "pressure drop rho %.6g -> %.6g along x (G %.3g)",
                  1.0 + 0.5 * flow.delta_rho, 1.0 - 0.5 * flow.delta_rho, imposed_gradient);
  } else {
    std::snprintf(drive_text, sizeof drive_text, "force %.3g along x", flow.force);
  }
  char stop_text[96];
  if (o.steps > 0) {
    std::snprintf(stop_text, sizeof stop_text, "%ld steps", o.steps);
  } else {
    std::snprintf(stop_text, sizeof stop_text, "until the superficial velocity changes by < %g", o.until_steady);
  }
  if (root) std::printf("  tau %.6f, nu %.6g, %s, %s\n", flow.tau, nu, drive_text, stop_text);
  std::fflush(stdout);

  const long target = o.steps > 0 ? o.steps : o.max_steps;
  double u_sum = 0, residual = INFINITY, compute_seconds = 0;
  bool steady = false;
  auto last_progress = clock::now();
  const auto t_run = clock::now();
  while (solver->steps() < target && !steady) {
    const long step = long(solver->steps());
    const long n = std::min(o.check_every - step % o.check_every, target - step);
    const auto t0 = clock::now();
    solver->advance(int(n));
    Kokkos::fence();
    compute_seconds += seconds_since(t0);
    const double now = ranks.sum(lbm::cases::velocity_sum(solver->block_moments()));
    if (!std::isfinite(now)) {
      if (root)
        std::fprintf(stderr,
                     "karman: error: karman porous: the solution diverged by step %lld (superficial velocity %g); "
                     "lower %s or raise --tau\n",
                     static_cast<long long>(solver->steps()), now / voxels, pressure ? "--delta-rho" : "--force");
      return exit_diverged;
    }
    residual = now != 0 ? std::fabs(now - u_sum) / std::fabs(now) : INFINITY;
    u_sum = now;
    steady = o.until_steady > 0 && residual < o.until_steady;
    const long done = long(solver->steps());
    // Every rank takes the same decision: rank 0's clock decides when progress is printed.
    const bool report = ranks.max(root && (seconds_since(last_progress) > 2.0 || steady || done == target)) > 0;
    if (!o.quiet && report) {
      last_progress = clock::now();
      const double mlups = fluid * double(done) / compute_seconds / 1e6;
      const double k = lbm::cases::darcy_flow(u_sum, voxels, fluid, flow, imposed_gradient).permeability;
      if (root)
        std::printf("  step %8ld  %9.1f MLUPS  k %.6g  change %.3e  %s %s\n", done, mlups, k, residual,
                    o.steps > 0 ? "ETA" : "ETA <=",
                    format_duration(compute_seconds / double(done) * double(target - done)).c_str());
      std::fflush(stdout);
    }
  }
  const double run_seconds = seconds_since(t_run);
  lbm::cases::PressureGradient measured;
  if (pressure) {
    // Each rank's owned share of the plane means (other ranks' voxels count 0); the means and the
    // gradient are linear in the densities, so their sums over the ranks are the box's.
    const auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solver->block_moments().rho);
    const lbm::cases::PressureGradient share = lbm::cases::measure_pressure_gradient(image, [&](int x, int y, int z) {
      const index_t v = solver->voxel_index(x, y, z);
      return v == absent_voxel ? 0.0 : rho(v);
    });
    measured = {ranks.sum(share.rho_inlet), ranks.sum(share.rho_outlet), ranks.sum(share.gradient)};
  }
  const lbm::cases::DarcyFlow darcy =
      lbm::cases::darcy_flow(u_sum, voxels, fluid, flow, pressure ? measured.gradient : flow.force);
  const double mlups = compute_seconds > 0 ? fluid * double(solver->steps()) / compute_seconds / 1e6 : 0.0;

  const double stored_voxels = ranks.sum(double(solver->voxel_count()));
  const double population_bytes = ranks.sum(double(solver->population_bytes()));
  const BoxFields f = o.no_fields ? BoxFields{} : gather_to_box(*solver, image, ranks);
  // Past the last collective call: rank 0 writes alone.
  if (!root) return 0;
  if (!o.no_fields) {
    const io::BoxGeometry box{e, {o.voxel_size, o.voxel_size, o.voxel_size}, {0, 0, 0}};
    io::FieldWriter writer(dir, box, {"rho", "ux", "uy", "uz", "solid"});
    io::FieldSlab slab{0, e.nz, {}};
    slab.datasets.push_back({f.rho.data(), f.rho.size()});
    for (const auto& c : f.u) slab.datasets.push_back({c.data(), c.size()});
    slab.datasets.push_back({f.solid.data(), f.solid.size()});
    writer.write(int(solver->steps()), double(solver->steps()), slab);
  }

  nlohmann::json summary;
  summary["case"] = "porous";
  summary["sample"] = sample.description;
  summary["sample"]["kind"] = sample.kind;
  summary["variant"] = {{"lattice", o.variant.lattice.name()},     {"precision", o.variant.precision.name()},
                        {"layout", o.variant.layout.name()},       {"pattern", o.variant.pattern.name()},
                        {"collision", o.variant.collision.name()}, {"grouping", o.grouping},
                        {"trt_magic", setup.relaxation.trt_magic}};
  summary["extents"] = {e.nx, e.ny, e.nz};
  summary["sides"] = pressure ? o.sides + " (x: inlet and outlet)" : o.sides;
  summary["tau"] = flow.tau;
  summary["viscosity"] = nu;
  summary["drive"] = lbm::cases::name(flow.drive);
  if (pressure) {
    summary["pressure"] = {{"delta_rho", flow.delta_rho},
                           {"rho_inlet_imposed", 1.0 + 0.5 * flow.delta_rho},
                           {"rho_outlet_imposed", 1.0 - 0.5 * flow.delta_rho},
                           {"rho_inlet", measured.rho_inlet},
                           {"rho_outlet", measured.rho_outlet},
                           {"gradient_imposed", imposed_gradient},
                           {"gradient", measured.gradient},
                           {"length", e.nx - 1}};
    summary["pressure_gradient"] = measured.gradient;
  } else {
    summary["force"] = flow.force;
  }
  summary["steps_run"] = solver->steps();
  summary["steady"] = steady;
  summary["final_change"] = std::isfinite(residual) ? nlohmann::json(residual) : nlohmann::json(nullptr);
  summary["porosity"] = darcy.porosity;
  summary["superficial_velocity"] = darcy.superficial_velocity;
  summary["interstitial_velocity"] = darcy.interstitial_velocity;
  summary["permeability_lattice"] = darcy.permeability;
  summary["permeability"] = darcy.permeability * o.voxel_size * o.voxel_size;
  char voxel_size[32];
  std::snprintf(voxel_size, sizeof voxel_size, "%.9g", o.voxel_size);
  summary["permeability_unit"] = std::string("voxel_size^2 (--voxel-size ") + voxel_size + ")";
  // Reynolds number on the pore scale sqrt(k): Darcy's law holds for it well below 1.
  summary["reynolds_sqrt_k"] = std::fabs(darcy.superficial_velocity) * std::sqrt(std::fabs(darcy.permeability)) / nu;
  if (sample.kind == "simple-cubic") {
    const double c = sample.description["solid_fraction"].get<double>();
    const double a = lbm::cases::sphere_radius(o.n, c);
    summary["simple_cubic"] = {{"solid_fraction", c},
                               {"sphere_radius", a},
                               {"permeability_over_a2", darcy.permeability / (a * a)},
                               {"drag_K", lbm::cases::simple_cubic_drag(darcy, o.n, c)},
                               {"drag_K_sangani_acrivos_series", lbm::cases::sangani_acrivos_drag(c)}};
  }
  summary["mlups"] = mlups;
  summary["wall_seconds"] = run_seconds;
  summary["setup_seconds"] = std::chrono::duration<double>(t_run - t_setup).count();
  summary["memory"] = {{"bytes_total", need.total},
                       {"bytes_per_fluid_voxel", est.bytes_per_fluid_voxel()},
                       {"persistent_bytes", est.persistent_bytes()},
                       {"peak_bytes", est.peak_bytes()},
                       {"population_bytes", est.population_bytes},
                       {"flag_bytes", est.flag_bytes},
                       {"grid_bytes", est.grid_bytes},
                       {"initial_state_bytes", est.initial_state_bytes},
                       {"moments_bytes", est.moments_bytes},
                       {"host_bytes", need.host_bytes},
                       {"space", device_memory ? "device" : "host"},
                       {"available_bytes", budget.bytes},
                       {"available_source", budget.source}};
  // Sums over the ranks; stored voxels and population bytes count each rank's halo blocks.
  summary["grid"] = {{"ranks", ranks.size()},
                     {"blocks", blocks},
                     {"boundary_blocks", boundary_blocks},
                     {"stored_voxels", stored_voxels},
                     {"fluid_voxels", fluid},
                     {"population_bytes", population_bytes},
                     {"population_bytes_per_fluid_voxel", population_bytes / fluid}};
  add_provenance(summary);
  io::write_json(dir / "summary.json", summary);
  std::printf(
      "karman porous: %lld steps in %.2f s, %.1f MLUPS (fluid voxels), porosity %.4f, U_s %.6g, k %.6g voxel^2%s\n",
      static_cast<long long>(solver->steps()), run_seconds, mlups, darcy.porosity, darcy.superficial_velocity,
      darcy.permeability, steady ? " (steady)" : "");
  if (summary.contains("simple_cubic")) {
    std::printf("  simple cubic c = %.4f: K = %.4f (Sangani & Acrivos series %.4f)\n",
                summary["simple_cubic"]["solid_fraction"].get<double>(),
                summary["simple_cubic"]["drag_K"].get<double>(),
                summary["simple_cubic"]["drag_K_sangani_acrivos_series"].get<double>());
  }
  std::printf(
      "  output in %s: %ssummary.json\n", std::filesystem::absolute(dir).c_str(),
      o.no_fields ? "" : "fields.xdmf (open in ParaView; threshold 'solid' < 0.5 for the pore space), fields_*.h5, ");
  if (summary["reynolds_sqrt_k"].get<double>() > 1.0) {
    std::fprintf(stderr,
                 "karman: warning: Re = U_s sqrt(k) / nu = %.3g is not small: inertia bends Darcy's law; lower %s\n",
                 summary["reynolds_sqrt_k"].get<double>(), pressure ? "--delta-rho" : "--force");
  }
  if (o.until_steady > 0 && !steady) {
    std::fprintf(stderr,
                 "karman: warning: --max-steps %ld reached with change %.3e above --until-steady %g; the results are "
                 "written but not steady (exit code %d)\n",
                 o.max_steps, residual, o.until_steady, int(exit_not_converged));
    return exit_not_converged;
  }
  return 0;
}

/// Runs the case; returns the exit code. An error every rank meets (bad input) is reported
/// once; the output is written by rank 0 after the last collective call.
int run_porous(const PorousOptions& o, const comm::Ranks& ranks) {
  return ranks.run([&] { return run_porous_on_ranks(o, ranks); });
}

}  // namespace

void add_porous_command(CLI::App& app, const comm::Ranks& ranks, int& exit_code) {
  auto o = std::make_shared<PorousOptions>();
  auto* cmd = app.add_subcommand(
      "porous",
      "Flow through a porous sample on the block-sparse grid, driven by a body force or a pressure difference: "
      "porosity, permeability");
  cmd->add_option("--n", o->n, "Edge of a generated sample in voxels (the simple-cubic array's cell edge)")
      ->capture_default_str();
  auto* porosity = cmd->add_option("--porosity", o->porosity, "Random sphere pack: target porosity in [0.01, 0.99]")
                       ->capture_default_str();
  auto* seed = cmd->add_option("--seed", o->seed, "Random sphere pack: seed (the same pack on every platform)")
                   ->capture_default_str();
  auto* radius = cmd->add_option("--radius", o->radius, "Random sphere pack: sphere radius in voxels")
                     ->check(positive_finite())
                     ->capture_default_str();
  auto* array =
      cmd->add_option("--array", o->array,
                      "sc: a simple-cubic array, one sphere per periodic cell of edge --n (Zick & Homsy 1982)")
          ->check(CLI::IsMember({"sc"}));
  auto* fraction =
      cmd->add_option("--solid-fraction", o->solid_fraction, "Simple-cubic array: solid fraction c in (0, 0.5236]");
  array->needs(fraction);
  fraction->needs(array);
  auto* geometry = cmd->add_option("--geometry", o->geometry,
                                   "Voxel image file: raw uint8 (give --dims) or HDF5 .h5/.hdf5 (give --dataset)");
  auto* dims = cmd->add_option("--dims", o->dims, "Image extents NX,NY,NZ (raw: required; HDF5: checked)")
                   ->delimiter(',')
                   ->expected(3);
  auto* dataset = cmd->add_option("--dataset", o->dataset, "HDF5 dataset of the image, e.g. /segmented");
  auto* encoding = cmd->add_option("--encoding", o->encoding, "Which voxels are solid")
                       ->check(CLI::IsMember({"nonzero_is_solid", "zero_is_solid"}))
                       ->capture_default_str();
  // Its square scales the permeability: outside this range the product overflows a double, or
  // falls below its normal range, for permeabilities of a few voxels^2 to millions.
  cmd->add_option("--voxel-size", o->voxel_size,
                  "Voxel edge in your length unit, in [1e-100, 1e100] (permeability in its square)")
      ->check(positive_finite())
      ->check(CLI::Validator(
          [](std::string& text) {
            const double size = std::strtod(text.c_str(), nullptr);
            return size >= 1e-100 && size <= 1e100
                       ? std::string()
                       : text +
                             " out of range [1e-100, 1e100] (the permeability in your unit, the voxel size squared "
                             "times the lattice's, must stay a finite, normal double)";
          },
          ""))
      ->capture_default_str();
  for (auto* pack_option : {porosity, seed, radius}) {
    pack_option->excludes(array);
    pack_option->excludes(geometry);
  }
  array->excludes(geometry);
  for (auto* file_option : {dims, dataset, encoding}) file_option->needs(geometry);
  cmd->add_option("--sides", o->sides,
                  "periodic (a periodic sample) or walls (bounce-back walls on the y and z faces; x stays periodic)")
      ->check(CLI::IsMember({"periodic", "walls"}))
      ->capture_default_str();
  cmd->add_option("--drive", o->drive,
                  "body-force (a sample periodic along x) or pressure (density 1 +- delta_rho/2 on the planes x = 0 "
                  "and x = nx - 1; k from the measured mean pressure gradient)")
      ->check(CLI::IsMember({"body-force", "pressure"}))
      ->capture_default_str();
  auto* delta_rho = cmd->add_option("--delta-rho", o->flow.delta_rho,
                                    "--drive pressure: rho_in - rho_out in (0, 0.1] (default: the equivalent of "
                                    "--force, 3 g (nx - 1))");
  cmd->add_option("--tau", o->flow.tau, "Relaxation time of the viscous moments, in [0.501, 100]: nu = (tau - 1/2)/3")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--force", o->flow.force,
                  "Body force per unit mass along x (lattice units); keep U_s sqrt(k)/nu << 1")
      ->capture_default_str();
  cmd->add_option("--lattice", o->variant.lattice, "Velocity set")
      ->check(CLI::IsMember({"d3q19", "d3q27"}))
      ->capture_default_str();
  cmd->add_option("--precision", o->variant.precision, "Storage and arithmetic precision")
      ->check(CLI::IsMember({"float", "double"}))
      ->capture_default_str();
  cmd->add_option("--layout", o->variant.layout, "Population layout: csoa (one chunk per 4^3 block) or soa")
      ->check(CLI::IsMember({"csoa", "soa"}))
      ->capture_default_str();
  cmd->add_option("--pattern", o->variant.pattern, "Propagation: ab (two lattices) or aa (one lattice, in place)")
      ->check(CLI::IsMember({"ab", "aa"}))
      ->capture_default_str();
  cmd->add_option("--collision", o->variant.collision,
                  "trt (magic parameter 3/16: the permeability does not depend on tau), bgk, mrt (d3q19) or cm (d3q27)")
      ->check(CLI::IsMember({"trt", "bgk", "mrt", "cm"}))
      ->capture_default_str();
  cmd->add_option("--grouping", o->grouping,
                  "Boundary blocks: memory (stored first, the bulk kernel has no test) or bitmask (one bit per block)")
      ->check(CLI::IsMember({"memory", "bitmask"}))
      ->capture_default_str();
  auto* steps = cmd->add_option("--steps", o->steps, "Run exactly S time steps")->check(positive_integer());
  auto* steady = cmd->add_option("--until-steady", o->until_steady,
                                 "Run until the superficial velocity changes by less than TOL (relative) over "
                                 "--check-every steps")
                     ->check(positive_finite());
  steps->excludes(steady);
  cmd->add_option("--max-steps", o->max_steps, "Step cap for --until-steady; reaching it exits with code 4")
      ->check(positive_integer())
      ->capture_default_str();
  cmd->add_option("--check-every", o->check_every, "Steps between velocity checks and progress lines")
      ->check(positive_integer())
      ->capture_default_str();
  cmd->add_option("--output", o->output, "Output directory")->capture_default_str();
  cmd->add_flag("--overwrite", o->overwrite, "Replace an earlier run's files in the output directory");
  cmd->add_flag("--no-fields", o->no_fields, "Write no HDF5 fields (summary.json only)");
  cmd->add_flag("--quiet", o->quiet, "No progress lines");
  cmd->add_flag("--estimate-memory", o->estimate_memory,
                "Print the memory the run would take (and whether it fits), then stop: nothing allocated or written");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "Refuse a run whose memory estimate exceeds this many bytes (default: the device's memory, or "
                  "the host's available memory on CPU backends)")
      ->check(positive_finite());
  cmd->footer(
      "Examples:\n"
      "  karman porous --n 64 --porosity 0.4 --seed 7 --until-steady 1e-6 --output pack\n"
      "  karman porous --array sc --solid-fraction 0.125 --n 32 --tau 1.5 --until-steady 1e-7 --output sc\n"
      "  karman porous --n 64 --porosity 0.4 --drive pressure --delta-rho 1e-3 --until-steady 1e-6 --output dp\n"
      "  karman porous --geometry rock.raw --dims 128,128,128 --voxel-size 2.5e-6 --steps 20000 --output rock\n"
      "  karman porous --geometry rock.h5 --dataset /segmented --until-steady 1e-6 --output rock");
  cmd->callback([=, &ranks, &exit_code] {
    o->delta_rho_given = delta_rho->count() > 0;
    exit_code = run_porous(*o, ranks);
  });
}

}  // namespace karman::app
