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

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace karman::app {
namespace {

/// Solid fraction of touching spheres in a simple-cubic array, pi / 6: beyond it the spheres
/// overlap, which Zick & Homsy's table does not cover.
constexpr double touching_fraction = 0.5235987755982988;

/// The shared run options' defaults for this case: D3Q19 in double precision, CSoA (one chunk
/// per block), TRT (its magic parameter makes k independent of tau), checks every 100 steps.
RunOptions porous_run_defaults() {
  RunOptions run;
  run.variant = {"d3q19", "double", "csoa", "trt", "ab"};
  run.check_every = 100;
  return run;
}

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
  bool delta_rho_given = false;  ///< --delta-rho on the command line (else: the --body-force equivalent)
  lbm::cases::PorousParams flow;
  std::string grouping = "memory";
  bool estimate_memory = false;  ///< print the memory estimate and stop
  double memory_limit = 0;       ///< bytes the run may take; 0: what the device (host) offers
  // Run: the options every case shares (run_options.hpp), with this case's defaults.
  RunOptions run = porous_run_defaults();
  bool schedule_given = false;  ///< --schedule on the command line (a dense grid's option)
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
/// backend, where the device is the host, that plus the host memory of the construction and of
/// the run loop.
struct MemoryNeed {
  lbm::SparseMemoryEstimate estimate;
  /// What the run loop (case_runner.cpp) holds besides the solver, per voxel of the box: it reads
  /// the flow, writes fields and checkpoints in the order of the ranks' boxes, solid voxels
  /// included. In the solver's space the moments in box order (32 bytes) or a checkpoint's
  /// populations (Q values); on the host a checkpoint's populations, or at the end the final
  /// fields (density, velocity and the solid marker of the rank's box, then the box gathered on
  /// rank 0 with a field's gather buffer: 80 bytes).
  double loop_device_bytes = 0;
  double loop_host_bytes = 0;
  double host_bytes = 0;  ///< estimate.host_bytes + loop_host_bytes
  double total = 0;       ///< what is compared with the budget
};

MemoryNeed memory_need(const lbm::SolverSetup& setup) {
  MemoryNeed m;
  m.estimate = lbm::estimate_sparse_memory(setup);
  const double voxels = double(setup.global.size());
  const double populations =
      lbm::lattice_populations(setup.variant.lattice) * lbm::precision_bytes(setup.variant.precision);
  m.loop_device_bytes = voxels * std::max(32.0, populations);
  m.loop_host_bytes = voxels * std::max(80.0, populations);
  m.host_bytes = double(m.estimate.host_bytes) + m.loop_host_bytes;
  m.total = double(m.estimate.peak_bytes()) + m.loop_device_bytes + (device_memory ? 0.0 : m.host_bytes);
  return m;
}

/// The memory estimate of a run and what it was compared with.
struct MemoryCheck {
  MemoryBudget budget;
  MemoryNeed need;
};

/// Prints the memory estimate of the run on rank 0 and refuses one that does not fit its share of
/// the budget (throws karman::Error); nothing is allocated. Returns the estimate for summary.json.
MemoryCheck check_porous_memory(const PorousOptions& o, const lbm::SolverSetup& setup, int ranks, bool root) {
  const MemoryBudget budget = memory_budget(o);
  // On several ranks each holds about its share of the blocks (and two halo block planes), so
  // the share is what is compared with the memory there.
  const MemoryNeed need = memory_need(setup);
  const double share = need.total / ranks;
  const lbm::SparseMemoryEstimate& est = need.estimate;
  if (root) {
    std::printf(
        "karman porous: memory estimate %s: %lld blocks, populations %s + flags %s + grid %s = %s (%.0f bytes per "
        "fluid voxel), peak %s + run loop %s%s%s; %s available (%s)\n",
        readable_bytes(need.total).c_str(), static_cast<long long>(est.blocks),
        readable_bytes(double(est.population_bytes)).c_str(), readable_bytes(double(est.flag_bytes)).c_str(),
        readable_bytes(double(est.grid_bytes)).c_str(), readable_bytes(double(est.persistent_bytes())).c_str(),
        est.bytes_per_fluid_voxel(), readable_bytes(double(est.peak_bytes())).c_str(),
        readable_bytes(need.loop_device_bytes).c_str(), device_memory ? "" : " + host ",
        device_memory ? "" : readable_bytes(need.host_bytes).c_str(),
        budget.bytes > 0 ? readable_bytes(budget.bytes).c_str() : "unknown", budget.source.c_str());
    if (ranks > 1) std::printf("  each of %d ranks holds about %s\n", ranks, readable_bytes(share).c_str());
    std::fflush(stdout);
  }
  if (budget.bytes > 0 && share > budget.bytes) {
    throw Error("karman porous: " +
                (ranks > 1 ? "each of " + std::to_string(ranks) + " ranks needs" : std::string("the run needs")) +
                " about " + readable_bytes(share) + " of " + (device_memory ? "device" : "host") + " memory (" +
                std::to_string(est.blocks) + " blocks: populations " + readable_bytes(double(est.population_bytes)) +
                ", flags " + readable_bytes(double(est.flag_bytes)) + ", grid " +
                readable_bytes(double(est.grid_bytes)) + ", transient " +
                readable_bytes(double(est.peak_bytes() - est.persistent_bytes())) + ", run loop " +
                readable_bytes(need.loop_device_bytes) +
                (device_memory ? "" : ", host tables and output " + readable_bytes(need.host_bytes)) +
                "), more than the " + readable_bytes(budget.bytes) + " of " + budget.source +
                "; use --precision float, --pattern aa, more ranks or a smaller sample");
  }
  // On a GPU the host holds the construction's tables and the output fields beside it.
  const double host_available = device_memory ? available_host_bytes() : 0.0;
  if (device_memory && host_available > 0 && need.host_bytes > host_available) {
    throw Error("karman porous: the run needs about " + readable_bytes(need.host_bytes) +
                " of host memory (the construction's host tables, checkpoints and the output fields), more than the " +
                readable_bytes(host_available) + " available; use more ranks or a smaller sample");
  }
  return {budget, need};
}

/// The case as checked input: the sample, the flow and the solver setup.
struct PorousCase {
  Sample sample;
  lbm::cases::PorousParams flow;
  bool pressure = false;
  lbm::SolverSetup setup;
};

/// Everything of the input that can be refused before the run loop: the options the run loop
/// does not know, the sample (read or generated) and the flow; throws karman::Error.
PorousCase check_input(const PorousOptions& o, bool root) {
  if (o.schedule_given) {
    throw Error(
        "karman porous: --schedule applies to the dense grids; the block-sparse grid keeps its boundary blocks apart "
        "by --grouping");
  }
  if (o.run.steps == 0 && o.run.until_steady == 0 && !o.estimate_memory) {
    throw Error("karman porous: give --steps S or --until-steady TOL (or --estimate-memory)");
  }
  try {
    lbm::require_compiled(o.run.variant, lbm::CompiledGrid::block_sparse);
  } catch (const Error& e) {
    throw Error(std::string("karman porous: ") + e.what());
  }
  const MemoryBudget budget = memory_budget(o);
  // A generated sample's image takes a byte a voxel, twice (the image and the fluid-path check's
  // marks), before the solver's own estimate can be made: refused first.
  if (o.geometry.empty() && budget.bytes > 0 && 2.0 * std::pow(double(o.n), 3) > budget.bytes) {
    throw Error("karman porous: --n " + std::to_string(o.n) + " makes a sample image of about " +
                readable_bytes(2.0 * std::pow(double(o.n), 3)) +
                " (2 bytes a voxel) before the solver, more than the " + readable_bytes(budget.bytes) + " of " +
                budget.source + "; use a smaller --n");
  }
  PorousCase c;
  c.flow = o.flow;
  c.flow.periodic = {true, o.sides == "periodic", o.sides == "periodic"};
  c.pressure = o.drive == "pressure";
  if (o.delta_rho_given && !c.pressure) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "karman porous: --delta-rho %g needs --drive pressure (the body-force drive takes --body-force)",
                  o.flow.delta_rho);
    throw Error(text);
  }
  if (c.pressure) c.flow.drive = lbm::cases::PorousDrive::pressure;
  c.sample = make_sample(o);
  if (c.pressure && !o.delta_rho_given) {
    // The same drive as --body-force: cs^2 delta_rho / (nx - 1) = g.
    c.flow.delta_rho = lbm::cases::equivalent_delta_rho(o.flow.force, c.sample.image->extents.nx);
    if (!(c.flow.delta_rho > 0 && c.flow.delta_rho <= lbm::cases::max_delta_rho)) {
      char text[192];
      std::snprintf(text, sizeof text,
                    "karman porous: --body-force %g over %d voxels means --delta-rho %g, out of range (0, %g]; give "
                    "--delta-rho in that range",
                    o.flow.force, c.sample.image->extents.nx, c.flow.delta_rho, lbm::cases::max_delta_rho);
      throw Error(text);
    }
  }
  c.setup = lbm::cases::porous_setup(c.sample.image, c.flow, o.run.variant);
  // 16- and 32-bit storage resolve rho ~ 1 to 1e-3 and 1e-7: a density difference near that many units
  // of the last place turns the measured gradient and k into rounding (docs/validation.md).
  if (root && c.pressure && lbm::precision_bytes(o.run.variant.precision.name()) < 8 && c.flow.delta_rho < 1e-3) {
    std::fprintf(stderr,
                 "karman: warning: --delta-rho %g in %s storage is close to its rounding of rho ~ 1; give "
                 "--delta-rho 1e-3 or more\n",
                 c.flow.delta_rho, o.run.variant.precision.name().c_str());
  }
  return c;
}

/// What the hooks of the case share over the run: the memory estimate its check made, and the
/// grid's figures summed over the ranks.
struct PorousRun {
  MemoryCheck memory;
  int ranks = 1;
  double blocks = 0, boundary_blocks = 0, stored_voxels = 0, population_bytes = 0;
};

/// The case's outputs from the final fields (rank 0): Darcy's figures, the pressure drop, the
/// simple-cubic drag, the memory and the grid in summary.json, and their lines.
void finish_porous(const PorousOptions& o, const PorousCase& c, const PorousRun& run, const GlobalFields& g,
                   nlohmann::json& summary) {
  const geometry::VoxelImage& image = *c.sample.image;
  const Extents& e = image.extents;
  const double voxels = double(e.size()), fluid = double(image.fluid_voxels());
  const double nu = lbm::cases::viscosity(c.flow);
  double u_sum = 0;
  for (const double u : g.ux) u_sum += u;
  lbm::cases::PressureGradient measured;
  if (c.pressure) {
    measured = lbm::cases::measure_pressure_gradient(image, [&](int x, int y, int z) { return g.rho[g.at(x, y, z)]; });
  }
  const lbm::cases::DarcyFlow darcy =
      lbm::cases::darcy_flow(u_sum, voxels, fluid, c.flow, c.pressure ? measured.gradient : c.flow.force);

  summary["sample"] = c.sample.description;
  summary["sample"]["kind"] = c.sample.kind;
  summary["variant"]["grouping"] = o.grouping;
  summary["variant"]["trt_magic"] = c.setup.relaxation.trt_magic;
  summary["sides"] = c.pressure ? o.sides + " (x: inlet and outlet)" : o.sides;
  summary["viscosity"] = nu;
  summary["drive"] = lbm::cases::name(c.flow.drive);
  if (c.pressure) {
    summary["pressure"] = {{"delta_rho", c.flow.delta_rho},
                           {"rho_inlet_imposed", 1.0 + 0.5 * c.flow.delta_rho},
                           {"rho_outlet_imposed", 1.0 - 0.5 * c.flow.delta_rho},
                           {"rho_inlet", measured.rho_inlet},
                           {"rho_outlet", measured.rho_outlet},
                           {"gradient_imposed", c.flow.delta_rho / (3.0 * (e.nx - 1))},
                           {"gradient", measured.gradient},
                           {"length", e.nx - 1}};
    summary["pressure_gradient"] = measured.gradient;
  } else {
    summary["force"] = c.flow.force;
  }
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
  if (c.sample.kind == "simple-cubic") {
    const double fraction = c.sample.description["solid_fraction"].get<double>();
    const double a = lbm::cases::sphere_radius(o.n, fraction);
    summary["simple_cubic"] = {{"solid_fraction", fraction},
                               {"sphere_radius", a},
                               {"permeability_over_a2", darcy.permeability / (a * a)},
                               {"drag_K", lbm::cases::simple_cubic_drag(darcy, o.n, fraction)},
                               {"drag_K_sangani_acrivos_series", lbm::cases::sangani_acrivos_drag(fraction)}};
  }
  const MemoryBudget& budget = run.memory.budget;
  const MemoryNeed& need = run.memory.need;
  const lbm::SparseMemoryEstimate& est = need.estimate;
  summary["memory"] = {{"bytes_total", need.total},
                       {"bytes_per_fluid_voxel", est.bytes_per_fluid_voxel()},
                       {"persistent_bytes", est.persistent_bytes()},
                       {"peak_bytes", est.peak_bytes()},
                       {"population_bytes", est.population_bytes},
                       {"flag_bytes", est.flag_bytes},
                       {"grid_bytes", est.grid_bytes},
                       {"initial_state_bytes", est.initial_state_bytes},
                       {"moments_bytes", est.moments_bytes},
                       {"run_loop_bytes", need.loop_device_bytes},
                       {"host_bytes", need.host_bytes},
                       {"space", device_memory ? "device" : "host"},
                       {"available_bytes", budget.bytes},
                       {"available_source", budget.source}};
  // Sums over the ranks; stored voxels and population bytes count each rank's halo blocks.
  summary["grid"] = {{"ranks", run.ranks},
                     {"blocks", run.blocks},
                     {"boundary_blocks", run.boundary_blocks},
                     {"stored_voxels", run.stored_voxels},
                     {"fluid_voxels", fluid},
                     {"population_bytes", run.population_bytes},
                     {"population_bytes_per_fluid_voxel", run.population_bytes / fluid}};

  std::printf("  porosity %.4f, U_s %.6g, k %.6g voxel^2\n", darcy.porosity, darcy.superficial_velocity,
              darcy.permeability);
  if (summary.contains("simple_cubic")) {
    std::printf("  simple cubic c = %.4f: K = %.4f (Sangani & Acrivos series %.4f)\n",
                summary["simple_cubic"]["solid_fraction"].get<double>(),
                summary["simple_cubic"]["drag_K"].get<double>(),
                summary["simple_cubic"]["drag_K_sangani_acrivos_series"].get<double>());
  }
  if (!o.run.no_fields) std::printf("  fields: threshold 'solid' < 0.5 in ParaView for the pore space\n");
  if (summary["reynolds_sqrt_k"].get<double>() > 1.0) {
    std::fprintf(stderr,
                 "karman: warning: Re = U_s sqrt(k) / nu = %.3g is not small: inertia bends Darcy's law; lower %s\n",
                 summary["reynolds_sqrt_k"].get<double>(), c.pressure ? "--delta-rho" : "--body-force");
  }
}

/// The case on the run loop every command shares (case_runner.hpp): the block-sparse solver, its
/// memory check, the superficial velocity as the steady figure, the solid marker as a field and
/// Darcy's figures at the end.
CaseDefinition porous_definition(const PorousOptions& o, const std::shared_ptr<const PorousCase>& c,
                                 const comm::Ranks& ranks) {
  auto run = std::make_shared<PorousRun>();
  const auto image = c->sample.image;
  const double voxels = double(image->extents.size()), fluid = double(image->fluid_voxels());
  CaseDefinition def;
  def.name = "porous";
  def.setup = c->setup;
  def.spacing = o.voxel_size;
  // The physics a restart must keep: the sample, its sides and the drive.
  def.parameters = {{"sample", c->sample.description},
                    {"sample_kind", c->sample.kind},
                    {"sides", o.sides},
                    {"drive", lbm::cases::name(c->flow.drive)},
                    {"tau", c->flow.tau},
                    {"force", c->pressure ? 0.0 : c->flow.force},
                    {"delta_rho", c->pressure ? c->flow.delta_rho : 0.0}};
  def.grid = lbm::CompiledGrid::block_sparse;
  const auto grouping = o.grouping == "bitmask" ? BlockGrouping::bitmask : BlockGrouping::memory;
  def.make_solver = [grouping](const lbm::SolverSetup& setup) -> std::unique_ptr<lbm::FlowSolver> {
    return lbm::make_sparse_solver(setup, grouping);
  };
  def.check_memory = [o, c, run, &ranks](int count) {
    run->memory = check_porous_memory(o, c->setup, count, ranks.root());
  };
  def.updated_voxels = fluid;
  def.started = [run, c, image, &ranks](lbm::FlowSolver& solver) {
    const lbm::GridCounts counts = solver.grid_counts();
    run->ranks = ranks.size();
    run->blocks = ranks.sum(double(counts.blocks));
    run->boundary_blocks = ranks.sum(double(counts.boundary_blocks));
    run->stored_voxels = ranks.sum(double(solver.owned_box().local_voxels));
    run->population_bytes = ranks.sum(double(solver.population_bytes()));
    if (!ranks.root()) return;
    std::printf("  %s sample, porosity %.4f, %.0f stored blocks (%.0f boundary), nu %.6g, ", c->sample.kind.c_str(),
                image->porosity(), run->blocks, run->boundary_blocks, lbm::cases::viscosity(c->flow));
    if (c->pressure) {
      std::printf("pressure drop rho %.6g -> %.6g along x (G %.3g)\n", 1.0 + 0.5 * c->flow.delta_rho,
                  1.0 - 0.5 * c->flow.delta_rho, c->flow.delta_rho / (3.0 * (image->extents.nx - 1)));
    } else {
      std::printf("force %.3g along x\n", c->flow.force);
    }
    std::fflush(stdout);
  };
  // The superficial velocity's sum over the fluid: Darcy's law needs it steady, whatever the
  // pores' small eddies do.
  def.steady_figure = [&ranks](const lbm::MomentFields& moments) {
    return ranks.sum(lbm::cases::velocity_sum(moments));
  };
  // What Darcy's law divides by while the run goes on: g, or the imposed G / rho0 of a pressure
  // drive (the summary uses the gradient measured at the end).
  const double gradient = c->pressure ? c->flow.delta_rho / (3.0 * (image->extents.nx - 1)) : c->flow.force;
  def.progress_note = [c, voxels, fluid, gradient](double u_sum) {
    if (!std::isfinite(u_sum)) return std::string("k n/a");
    char text[48];
    std::snprintf(text, sizeof text, "k %.6g",
                  lbm::cases::darcy_flow(u_sum, voxels, fluid, c->flow, gradient).permeability);
    return std::string(text);
  };
  def.extra_fields = {{"solid", [image](const lbm::OwnedBox& box) {
                         std::vector<double> solid(std::size_t(box.size()));
                         for (index_t k = 0; k < box.size(); ++k)
                           solid[std::size_t(k)] = image->solid[std::size_t(box.global_index(k))] ? 1.0 : 0.0;
                         return solid;
                       }}};
  def.stability_advice = std::string("lower ") + (c->pressure ? "--delta-rho" : "--body-force") + " or raise --tau";
  def.finish = [o, c, run](const GlobalFields& g, const std::filesystem::path&, nlohmann::json& summary) {
    finish_porous(o, *c, *run, g, summary);
  };
  return def;
}

/// Runs the case on every rank of `ranks` (the block planes divided between them); the exit code.
/// Errors every rank meets (bad input) are reported once.
int run_porous(const PorousOptions& o, const comm::Ranks& ranks) {
  const auto c = std::make_shared<const PorousCase>(ranks.run([&] { return check_input(o, ranks.root()); }));
  if (o.estimate_memory) {
    ranks.run([&] { check_porous_memory(o, c->setup, ranks.size(), ranks.root()); });
    return 0;
  }
  CaseDefinition def = porous_definition(o, c, ranks);
  return run_case(ranks, o.run, def);
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
                                    "--body-force, 3 g (nx - 1))");
  cmd->add_option("--tau", o->flow.tau, "Relaxation time of the viscous moments, in [0.501, 100]: nu = (tau - 1/2)/3")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--body-force", o->flow.force,
                  "Body force per unit mass along x (lattice units); keep U_s sqrt(k)/nu << 1")
      ->capture_default_str();
  cmd->add_option("--grouping", o->grouping,
                  "Boundary blocks: memory (stored first, the bulk kernel has no test) or bitmask (one bit per block)")
      ->check(CLI::IsMember({"memory", "bitmask"}))
      ->capture_default_str();
  add_run_options(*cmd, o->run);
  // The same options as every case, narrowed to what the block-sparse grid compiles and with
  // this case's meaning of the residual.
  cmd->get_option("--lattice")->check(CLI::IsMember({"d3q19", "d3q27"}))->capture_default_str();
  cmd->get_option("--precision")->check(CLI::IsMember({"float", "double"}));
  cmd->get_option("--layout")
      ->check(CLI::IsMember({"csoa", "soa"}))
      ->description("Population layout: csoa (one chunk per 4^3 block) or soa");
  cmd->get_option("--collision")
      ->description(
          "trt (magic parameter 3/16: the permeability does not depend on tau), bgk, mrt (d3q19) or cm (d3q27)");
  cmd->get_option("--until-steady")
      ->description("Run until the superficial velocity changes by less than TOL (relative) over --check-every steps");
  cmd->get_option("--check-every")->capture_default_str();
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
    o->schedule_given = cmd->count("--schedule") > 0;
    exit_code = run_porous(*o, ranks);
  });
}

}  // namespace karman::app
