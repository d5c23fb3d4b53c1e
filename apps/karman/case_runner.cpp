#include "case_runner.hpp"

#include "checkpoint.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/version.hpp>
#include <karman/io/box_geometry.hpp>
#include <karman/io/checkpoint_file.hpp>
#include <karman/io/field_writer.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/lbm/diagnostics/steady_state_monitor.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <KokkosBlas1_nrm2.hpp>

#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace karman::app {
namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

/// Velocity of owned fluid voxels flattened (axis-major), for the residual.
Kokkos::View<const double*> flatten(const lbm::MomentFields& m) {
  return Kokkos::View<const double*>(m.u.data(), m.u.extent(0) * 3);
}

/// Global steady-state residual |u(t) - u(t-k)| / |u(t)| from each rank's relative change.
double global_residual(const Parallel& parallel, double local_relative, Kokkos::View<const double*> now) {
  if (parallel.size() == 1) return local_relative;
  const double norm = KokkosBlas::nrm2(now);
  const double change = norm > 0 ? local_relative * norm : local_relative;
  const double total = std::sqrt(parallel.sum(norm * norm));
  const double diff = std::sqrt(parallel.sum(change * change));
  return total > 0 ? diff / total : diff;
}

/// Host copies of this rank's owned moments in writer order.
struct HostSlab {
  std::vector<double> rho, u[3];
};

HostSlab to_host(const lbm::MomentFields& m) {
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  HostSlab s;
  s.rho.assign(rho.data(), rho.data() + rho.extent(0));
  for (int d = 0; d < 3; ++d) s.u[d].assign(&u(0, d), &u(0, d) + u.extent(0));
  return s;
}

std::string format_duration(double s) {
  char buf[32];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  return buf;
}

/// The signal that asked the run to stop (SIGTERM, SIGINT), 0 while none did. The handler only
/// records it; the time loop polls it at step boundaries and the ranks agree by a reduction.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void record_stop_signal(int signal) {
  if (stop_signal != 0) {
    // A second signal: the user insists, so the default action (termination) takes over.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal = signal;
}

/// SIGTERM and SIGINT recorded for the duration of a run, the previous handlers restored after.
class StopSignals {
 public:
  StopSignals() {
    stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = record_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // MPI and file calls continue; the loop looks at the flag
    sigaction(SIGTERM, &action, &m_term);
    sigaction(SIGINT, &action, &m_int);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals() {
    sigaction(SIGTERM, &m_term, nullptr);
    sigaction(SIGINT, &m_int, nullptr);
  }

 private:
  struct sigaction m_term {};
  struct sigaction m_int {};
};

std::string readable_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[u]);
  return text;
}

/// Bytes of memory this host offers now (MemAvailable), or 0 when unknown.
double available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return 0;
}

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

/// Refuses a run whose populations would not fit, before anything is allocated: the estimate
/// counts the lattices (one AA, two AB) with their halo planes, the flags and the moments.
void check_memory(const lbm::SolverSetup& setup, int ranks) {
  const auto& v = setup.variant;
  const double q = lbm::lattice_populations(v.lattice);
  const double value_bytes = lbm::precision_bytes(v.precision);
  const double lattices = v.pattern == "aa" ? 1 : 2;
  const Extents& g = setup.global;
  const int axis_planes = g.nz > 1 ? g.nz : g.ny;
  const double plane = g.nz > 1 ? double(g.nx) * g.ny : double(g.nx);
  const double voxels_per_rank = (std::ceil(double(axis_planes) / ranks) + 2) * plane;
  const double bytes_per_voxel = q * value_bytes * lattices + 4 + 2 * 32;
  const double need = voxels_per_rank * bytes_per_voxel;
  const auto info = backend_info();
  const bool device = !std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>;
  const double have = device ? info.device_memory_gib * 1073741824.0 : available_host_bytes() / ranks_on_this_node();
  if (have > 0 && need > have) {
    char detail[256];
    std::snprintf(detail, sizeof detail, "%.3g voxels per rank x %.0f bytes (%s, %s, %s)", voxels_per_rank,
                  bytes_per_voxel, v.lattice.c_str(), v.precision.c_str(), v.pattern.c_str());
    throw Error("the box " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                " needs about " + readable_bytes(need) + " of " + (device ? "device" : "host") + " memory per rank (" +
                detail + "), but " + readable_bytes(have) +
                " are available; use a smaller size, --precision float or fp16s, --pattern aa or more ranks");
  }
}

/// Removes the field files of steps after `step` (a restarted run's predecessor wrote them after
/// its last checkpoint; the continued run writes its own), so no file of two runs mixes.
void remove_fields_after(const std::filesystem::path& directory, long step) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    long file_step = 0;
    if (std::sscanf(name.c_str(), "fields_%ld", &file_step) == 1 && name.size() > 3 &&
        name.compare(name.size() - 3, 3, ".h5") == 0 && file_step > step) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

/// The karman output files already in `directory`, listed for a message ("" when none).
std::string earlier_run_files_text(const std::filesystem::path& directory) {
  std::string text;
  for (const auto& name : io::earlier_run_files(directory)) text += (text.empty() ? "" : ", ") + name;
  return text;
}

/// Where the divergence check found a bad value, as every rank learns it.
struct Divergence {
  bool found = false;
  int x = 0, y = 0, z = 0;  ///< global voxel
  double rho = 0, u[3] = {0, 0, 0};
};

/// Relaxation times above this are viscosities the lattice cannot represent accurately (with
/// BGK the bounce-back wall moves with tau); tau <= 1/2 the cases refuse themselves.
constexpr double max_tau = 100.0;

/// Densities outside [0, this] count as diverged; walls hold 0, fluid stays near 1 at Mach < 0.3.
constexpr double max_sane_density = 10.0;

/// Collective: the first owned voxel (in global order) whose density or velocity is not finite
/// or whose density lies outside [0, max_sane_density]. One reduction kernel over the moments
/// the check has computed anyway.
Divergence find_divergence(const Parallel& parallel, const lbm::MomentFields& m, const SlabPartition& part) {
  const auto rho = m.rho;
  const auto u = m.u;
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "karman::find_divergence", Kokkos::RangePolicy<>(0, rho.extent(0)),
      KOKKOS_LAMBDA(const long long i, long long& found) {
        const double r = rho(i);
        // x - x is 0 for every finite x and NaN for NaN and infinities.
        const bool bad = !(r >= 0 && r <= max_sane_density) || !(u(i, 0) - u(i, 0) == 0) || !(u(i, 1) - u(i, 1) == 0) ||
                         !(u(i, 2) - u(i, 2) == 0);
        if (bad && i < found) found = i;
      },
      Kokkos::Min<long long>(first));
  const Extents& g = part.global();
  const double plane = g.nz > 1 ? double(g.nx) * g.ny : double(g.nx);
  const double local_first = first == LLONG_MAX ? -1.0 : double(part.owned_begin()) * plane + double(first);
  // The lowest global index wins: maximise its negation (no bad voxel: -1 -> +1, never chosen).
  const double global_first = -parallel.max(local_first < 0 ? -std::numeric_limits<double>::max() : -local_first);
  Divergence d;
  if (global_first == std::numeric_limits<double>::max()) return d;
  d.found = true;
  std::vector<double> mine(5, -1.0);
  if (local_first == global_first) {
    auto one_rho = Kokkos::subview(rho, std::make_pair(first, first + 1));
    auto one_u = Kokkos::subview(u, std::make_pair(first, first + 1), Kokkos::ALL());
    const auto h_rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one_rho);
    const auto h_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one_u);
    mine = {global_first, h_rho(0), h_u(0, 0), h_u(0, 1), h_u(0, 2)};
  }
  const std::vector<double> all = parallel.gather(mine);
  for (std::size_t r = 0; r + 4 < all.size(); r += 5) {
    if (all[r] != global_first) continue;
    d.rho = all[r + 1];
    for (int a = 0; a < 3; ++a) d.u[a] = all[r + 2 + a];
  }
  const long long index = static_cast<long long>(global_first);
  d.x = int(index % g.nx);
  d.y = int((index / g.nx) % g.ny);
  d.z = int(index / (static_cast<long long>(g.nx) * g.ny));
  return d;
}

/// Testing aid (--inject-nan): NaN into every population of the box's centre voxel, through the
/// checkpoint copy of the populations so that every layout and pattern is reached alike. The
/// stored word is the precision's encoding of NaN: FP16C has none and saturates, which the run
/// reports as a density out of range.
void inject_nan(lbm::FlowSolver& solver, const std::string& precision) {
  const auto& part = solver.partition();
  const Extents& g = part.global();
  const int axis_planes = g.nz > 1 ? g.nz : g.ny;
  const int centre_plane = axis_planes / 2;
  if (centre_plane < part.owned_begin() || centre_plane >= part.owned_begin() + part.owned_planes()) return;
  const long long plane = g.nz > 1 ? static_cast<long long>(g.nx) * g.ny : g.nx;
  const long long in_plane = g.nz > 1 ? static_cast<long long>(g.ny / 2) * g.nx + g.nx / 2 : g.nx / 2;
  const long long voxel = (centre_plane - part.owned_begin()) * plane + in_plane;
  const std::size_t q = std::size_t(solver.populations()), size = std::size_t(solver.population_size());
  std::vector<std::byte> populations(std::size_t(part.owned_planes()) * std::size_t(plane) * q * size);
  solver.save_populations(populations.data());
  lbm::dispatch<lbm::Precisions>(precision, [&](auto tag) {
    using P = lbm::precision_t<lbm::tag_type<decltype(tag)>>;
    const typename P::storage nan = P::encode(std::numeric_limits<typename P::compute>::quiet_NaN());
    for (std::size_t i = 0; i < q; ++i)
      std::memcpy(populations.data() + (std::size_t(voxel) * q + i) * size, &nan, size);
  });
  solver.load_populations(populations.data(), solver.steps());
}

/// The boundary table (wall velocities, inlet and outlet values) as a checkpoint stores it.
nlohmann::json boundary_table_json(const lbm::BoundaryTable& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const lbm::BoundaryValue& b : table.values) {
    rows.push_back({{"rho", b.rho},
                    {"u", {b.u[0], b.u[1], b.u[2]}},
                    {"normal_axis", b.normal_axis},
                    {"normal_sign", b.normal_sign},
                    {"profile", {b.profile_axis, b.profile_lo, b.profile_hi}}});
  }
  return rows;
}

/// A fingerprint of the flag field's source: every voxel's kind and boundary id, x fastest. A
/// checkpoint stores it in place of the flags, which the solver rebuilds from the case.
std::string geometry_fingerprint(const lbm::SolverSetup& setup) {
  const Extents& g = setup.global;
  // One checksum per z plane, then one over those: memory for a plane, not for the box.
  std::vector<std::uint64_t> planes;
  std::vector<std::uint32_t> cells(std::size_t(g.nx) * std::size_t(g.ny) * 2);
  for (int z = 0; z < g.nz && setup.geometry; ++z) {
    std::size_t k = 0;
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const lbm::CellSpec c = setup.geometry(x, y, z);
        cells[k++] = static_cast<std::uint32_t>(c.kind);
        cells[k++] = static_cast<std::uint32_t>(c.id);
      }
    planes.push_back(io::checksum(reinterpret_cast<const std::byte*>(cells.data()), cells.size() * sizeof(cells[0])));
  }
  char text[20];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(io::checksum(reinterpret_cast<const std::byte*>(planes.data()),
                                                             planes.size() * sizeof(planes[0]))));
  return text;
}

/// The parameters a restart must keep (the physics) against those it may change; throws
/// karman::Error for a different case, box, lattice or precision, and for changed physics
/// unless `force`. Returns notes on what differs (layout, pattern: converted).
std::vector<std::string> compare_configurations(const nlohmann::json& stored, const nlohmann::json& current,
                                                bool force) {
  const std::string where = "--restart: ";
  if (stored.at("case") != current.at("case")) {
    throw Error(where + "the checkpoint is of case " + stored.at("case").dump() + ", this run is " +
                current.at("case").dump());
  }
  for (const char* key : {"lattice", "precision"}) {
    if (stored.at("variant").at(key) != current.at("variant").at(key)) {
      throw Error(where + "the checkpoint has " + key + " " + stored.at("variant").at(key).dump() + ", this run " +
                  current.at("variant").at(key).dump() + "; give the checkpoint's --" + key);
    }
  }
  if (stored.at("extents") != current.at("extents")) {
    throw Error(where + "the checkpoint's box is " + stored.at("extents").dump() + ", this run's " +
                current.at("extents").dump());
  }
  if (stored.value("geometry_fnv1a64", nlohmann::json()) != current.value("geometry_fnv1a64", nlohmann::json())) {
    throw Error(where + "the checkpoint's geometry (walls, inlets, outlets) differs from this run's");
  }
  std::vector<std::string> changed;
  if (stored.value("boundaries", nlohmann::json()) != current.value("boundaries", nlohmann::json())) {
    changed.push_back("boundary values");
  }
  for (const auto& [key, value] : stored.at("parameters").items()) {
    const auto now = current.at("parameters").find(key);
    if (now == current.at("parameters").end() || *now != value) {
      changed.push_back(key + " " + value.dump() + " -> " +
                        (now == current.at("parameters").end() ? std::string("none") : now->dump()));
    }
  }
  if (stored.at("variant").at("collision") != current.at("variant").at("collision")) {
    changed.push_back("collision " + stored.at("variant").at("collision").dump() + " -> " +
                      current.at("variant").at("collision").dump());
  }
  std::vector<std::string> notes;
  if (!changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    if (!force) {
      throw Error(where + "physical parameters differ from the checkpoint's (" + list +
                  "); give the checkpoint's values, or --force to continue with the new ones");
    }
    notes.push_back("continuing with changed parameters (--force): " + list);
  }
  for (const char* key : {"layout", "pattern"}) {
    if (stored.at("variant").at(key) != current.at("variant").at(key)) {
      notes.push_back(std::string("checkpoint ") + key + " " + stored.at("variant").at(key).dump() + " converted to " +
                      current.at("variant").at(key).dump());
    }
  }
  return notes;
}

}  // namespace

int run_case(const Parallel& parallel, const RunOptions& options, CaseDefinition& def) {
  const auto t_setup = clock::now();
  lbm::SolverSetup& setup = def.setup;
  setup.variant = options.variant;
  setup.relaxation.omega_bulk = options.bulk_rate;
  setup.relaxation.omega_high = options.high_order_rate;
  // The moment rates are physics: a restart compares them, summary.json records them.
  if (lbm::Collisions::index_of(options.variant.collision) >= 0 &&
      lbm::collision_has_moment_rates(options.variant.collision)) {
    def.parameters["bulk_rate"] = options.bulk_rate;
    def.parameters["high_order_rate"] = options.high_order_rate;
  }
  setup.rank = parallel.rank();
  setup.ranks = parallel.size();
  setup.overlap = options.overlap;
  setup.schedule = options.schedule == "fused" ? lbm::Schedule::fused : lbm::Schedule::split;
#if KARMAN_ENABLE_MPI
  setup.communicator = parallel.comm();
  setup.gpu_aware = comm::parse_gpu_aware_mode(options.mpi_gpu_aware);
  setup.pack_halos = options.halo_pack;
#endif
  const int dim = setup.global.dimension();
  const std::filesystem::path dir = options.output;
  std::vector<std::string> names = {"rho", "ux", "uy"};
  if (dim == 3) names.push_back("uz");
  const long check_every =
      options.check_every > 0 ? options.check_every : std::max(50L, long(10 * setup.global.extent(0)));
  const long target = options.steps > 0 ? options.steps : options.max_steps;

  // The configuration a checkpoint stores and a restart compares against.
  nlohmann::json configuration;
  configuration["case"] = def.name;
  configuration["parameters"] = def.parameters;
  configuration["variant"] = {{"lattice", options.variant.lattice},
                              {"precision", options.variant.precision},
                              {"layout", options.variant.layout},
                              {"pattern", options.variant.pattern},
                              {"collision", options.variant.collision}};
  configuration["extents"] = {setup.global.nx, setup.global.ny, setup.global.nz};
  configuration["run"] = {{"steps", options.steps},
                          {"until_steady", options.until_steady},
                          {"max_steps", options.max_steps},
                          {"check_every", check_every},
                          {"output_every", options.output_every},
                          {"checkpoint_every", options.checkpoint_every},
                          {"checkpoint_interval", options.checkpoint_interval},
                          {"ranks", parallel.size()}};
  // The boundaries and the geometry's fingerprint (one pass over the box) only when a checkpoint
  // needs them: before its first write, or to compare with the one a restart reads.
  auto describe_geometry = [&] {
    if (configuration.contains("geometry_fnv1a64")) return;
    configuration["boundaries"] = boundary_table_json(setup.boundaries);
    configuration["geometry_fnv1a64"] = geometry_fingerprint(setup);
  };

  // Everything that can fail on bad input happens here, before anything is allocated or written:
  // options, the restart's checkpoint and its configuration, the output directory, the memory.
  std::vector<CheckpointManifest> candidates;
  std::vector<std::string> restart_notes;
  collectively(parallel, [&] {
    try {
      validate_run_options(options);
    } catch (const Error& e) {
      throw Error("karman " + def.name + ": " + e.what());
    }
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
      throw Error("karman " + def.name + ": --output '" + dir.string() + "' exists and is not a directory");
    }
    if (!options.restart.empty()) {
      candidates = restart_candidates(options.restart, dir);
      if (candidates.front().step >= target) {
        throw Error("karman " + def.name + ": the checkpoint is at step " + std::to_string(candidates.front().step) +
                    " already; give --steps (or --max-steps) beyond it");
      }
      describe_geometry();
      restart_notes = compare_configurations(candidates.front().configuration(), configuration, options.force);
    } else if (!options.overwrite) {
      const auto earlier = earlier_run_files_text(dir);
      if (!earlier.empty()) {
        throw Error("karman " + def.name + ": --output '" + dir.string() + "' holds an earlier run's files (" +
                    earlier + "); give --overwrite to replace them, --restart latest to continue that run, or " +
                    "another --output");
      }
    }
    const double tau = 1.0 / setup.relaxation.omega;
    if (!(tau <= max_tau)) {
      char text[160];
      std::snprintf(text, sizeof text, "tau = %.3g out of range (0.5, %g]", tau, max_tau);
      throw Error("karman " + def.name + ": " + text +
                  ": the viscosity is too large for the lattice; raise --re or lower the resolution");
    }
    check_memory(setup, parallel.size());
  });
  auto built = collectively(parallel, [&] {
    auto s = lbm::make_solver(setup);
    if (options.overwrite && parallel.root()) io::remove_earlier_run_files(dir);
    io::prepare_output_directory(dir);
    io::BoxGeometry box{
        setup.global, {def.spacing, def.spacing, def.spacing}, {def.origin[0], def.origin[1], def.origin[2]}};
#if KARMAN_ENABLE_MPI
    io::FieldWriter w(dir, box, names, parallel.comm());
#else
    io::FieldWriter w(dir, box, names);
#endif
    return std::make_pair(std::move(s), std::move(w));
  });
  auto solver = std::move(built.first);
  io::FieldWriter writer = std::move(built.second);
  nlohmann::json restarted_from;
  if (!candidates.empty()) {
    const CheckpointManifest loaded = load_checkpoint(parallel, candidates, *solver);
    restarted_from = {{"checkpoint", loaded.directory.string()}, {"step", loaded.step}};
    if (parallel.root()) {
      std::printf("karman %s: restarting from %s (step %lld)\n", def.name.c_str(), loaded.directory.c_str(),
                  loaded.step);
      for (const auto& note : restart_notes) std::printf("  %s\n", note.c_str());
    }
  }

  const auto& part = solver->partition();
  const double global_voxels = double(setup.global.size());
  const long first_step = long(solver->steps());
  if (parallel.root()) {
    std::printf("karman %s: %dx%dx%d voxels, %s, %d rank(s), %s\n", def.name.c_str(), setup.global.nx, setup.global.ny,
                setup.global.nz, solver->description().c_str(), parallel.size(), Kokkos::DefaultExecutionSpace::name());
    std::printf(
        "  tau %.6f, %s %s\n", 1.0 / setup.relaxation.omega, options.steps > 0 ? "steps" : "until residual <",
        options.steps > 0 ? std::to_string(options.steps).c_str() : std::to_string(options.until_steady).c_str());
    std::fflush(stdout);
  }

  auto write_fields = [&](const lbm::MomentFields& m) {
    const HostSlab h = to_host(m);
    io::FieldSlab slab{part.owned_begin(), part.owned_planes(), {}};
    slab.datasets.push_back({h.rho.data(), h.rho.size()});
    for (int d = 0; d < dim; ++d) slab.datasets.push_back({h.u[d].data(), h.u[d].size()});
#if KARMAN_ENABLE_MPI
    try {
      writer.write(int(solver->steps()), double(solver->steps()), slab);
    } catch (const Error& e) {
      // The writer has made every rank throw this same error: every rank leaves through main
      // with one message and code 1, none waits in a collective call.
      throw comm::CollectiveError(e.what(), 0);
    }
#else
    writer.write(int(solver->steps()), double(solver->steps()), slab);
#endif
  };

  // Checkpoints: their count, time and size for summary.json, and the last one for messages.
  int checkpoints_written = 0;
  double checkpoint_seconds = 0, checkpoint_bytes = 0;
  long last_checkpoint_step = -1;
  auto last_checkpoint_time = clock::now();
  auto write_checkpoint_now = [&] {
    describe_geometry();
    const auto t0 = clock::now();
    checkpoint_bytes = write_checkpoint(parallel, dir, *solver, configuration);
    const double seconds = seconds_since(t0);
    checkpoint_seconds += seconds;
    ++checkpoints_written;
    last_checkpoint_step = long(solver->steps());
    last_checkpoint_time = clock::now();
    if (parallel.root() && !options.quiet) {
      std::printf("  checkpoint at step %ld: %s in %.2f s\n", last_checkpoint_step,
                  readable_bytes(checkpoint_bytes).c_str(), seconds);
      std::fflush(stdout);
    }
  };
  auto divergence_message = [&](const Divergence& d) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "the solution diverged by step %lld: voxel (x, y, z) = (%d, %d, %d) has rho = %g, u = (%g, %g, "
                  "%g) (accepted: finite, 0 <= rho <= %g)",
                  static_cast<long long>(solver->steps()), d.x, d.y, d.z, d.rho, d.u[0], d.u[1], d.u[2],
                  max_sane_density);
    std::string message = "karman " + def.name + ": " + text +
                          "; lower --re or the velocity, raise the resolution, or try --collision trt";
    if (last_checkpoint_step >= 0) {
      message += "; the last good checkpoint (step " + std::to_string(last_checkpoint_step) + ") is kept";
    }
    return message;
  };

  lbm::SteadyStateMonitor monitor;
  // After a restart on a check step the monitor's snapshot is the one the interrupted run held.
  if (!candidates.empty() && options.until_steady > 0 && first_step % check_every == 0) {
    (void)monitor.update(flatten(solver->moments()));
  }
  double residual = std::numeric_limits<double>::infinity();
  double compute_seconds = 0;
  auto last_progress = clock::now();
  const auto t_run = clock::now();
  bool steady = false;
  const StopSignals signals;
  // Flags the ranks agree on at step boundaries: a stop signal, and (rank 0's clock) a due
  // --checkpoint-interval. Several ranks poll every few steps: a reduction per step would cost.
  constexpr unsigned stop_flag = 1, interval_flag = 2;
  const long poll_every = parallel.size() > 1 ? 4 : 1;
  auto poll = [&] {
    unsigned local = stop_signal != 0 ? stop_flag : 0;
    if (parallel.root() && options.checkpoint_interval > 0 &&
        seconds_since(last_checkpoint_time) >= options.checkpoint_interval) {
      local |= interval_flag;
    }
    return parallel.size() > 1 ? parallel.bitwise_or(local) : local;
  };
  auto next_multiple = [](long step, long every) { return (step / every + 1) * every; };
  unsigned pending = 0;
  long last_check_step = first_step;
  double steps_to_tolerance = 0;  // from the residual's decay; 0 while unknown
  if (options.output_every > 0 && candidates.empty()) write_fields(solver->moments());
  if (!candidates.empty()) {
    collectively(parallel, [&] {
      if (parallel.root()) remove_fields_after(dir, first_step);
    });
  }
  if (options.output_every > 0 && !candidates.empty()) {
    collectively(parallel, [&] {
      writer.adopt_earlier_steps(int(first_step), int(options.output_every),
                                 io::FieldSlab{part.owned_begin(), part.owned_planes(), {}});
    });
  }
  while (solver->steps() < target && !steady) {
    long step = long(solver->steps());
    // Events fall on multiples of their periods, so a restarted run meets them where the
    // interrupted one did.
    long next = std::min(target, next_multiple(step, check_every));
    if (options.output_every > 0) next = std::min(next, next_multiple(step, options.output_every));
    if (options.checkpoint_every > 0) next = std::min(next, next_multiple(step, options.checkpoint_every));
    if (options.inject_nan > step) next = std::min(next, options.inject_nan);
    if (def.observe_every > 0) next = std::min(next, next_multiple(step, def.observe_every));
    const auto t0 = clock::now();
    while (step < next) {
      const long n = std::min(poll_every - step % poll_every, next - step);
      solver->advance(int(n));
      step += n;
      if (step % poll_every == 0 || step == next) pending |= poll();
      // A checkpoint needs the whole state in the owned voxels (AA: an even step).
      if (pending != 0 && solver->populations_complete()) break;
    }
    Kokkos::fence();
    compute_seconds += seconds_since(t0);

    if (def.observe && def.observe_every > 0 && step % def.observe_every == 0) def.observe(*solver);
    if (step == options.inject_nan) inject_nan(*solver, options.variant.precision);
    const bool check = step % check_every == 0 || step == target;
    const bool output = options.output_every > 0 && step % options.output_every == 0;
    const bool checkpoint = (options.checkpoint_every > 0 && step % options.checkpoint_every == 0) ||
                            (pending != 0 && solver->populations_complete());
    if (check || output || checkpoint) {
      const auto m = solver->moments();
      // Nothing is written from a diverged state: the check comes first.
      const Divergence d = find_divergence(parallel, m, part);
      if (d.found) {
        if (parallel.root()) std::fprintf(stderr, "karman: error: %s\n", divergence_message(d).c_str());
        return exit_diverged;
      }
      if (check) {
        const auto u = flatten(m);
        const double before = residual;
        residual = global_residual(parallel, monitor.update(u), u);
        steady = options.until_steady > 0 && residual < options.until_steady;
        // The residual of a steady-state run decays about exponentially: its last two values
        // say how many steps remain to the tolerance (the ETA of the progress line).
        if (std::isfinite(before) && residual < before && residual > 0) {
          const double rate = std::log(before / residual) / double(step - last_check_step);
          steps_to_tolerance = std::log(residual / options.until_steady) / rate;
        }
        last_check_step = step;
      }
      if (output) write_fields(m);
      if (checkpoint) write_checkpoint_now();
    }
    if (checkpoint && (pending & stop_flag) != 0) {
      const int signal = int(parallel.max(double(stop_signal)));
      if (parallel.root()) {
        std::fprintf(stderr,
                     "karman: stopped by %s after step %ld; checkpoint written to %s/checkpoints. Continue with the "
                     "same command and --restart latest (exit code %d)\n",
                     signal == SIGINT ? "SIGINT" : "SIGTERM", step, dir.c_str(), exit_signal_offset + signal);
      }
      return exit_signal_offset + signal;
    }
    if (checkpoint) pending = 0;
    if (parallel.root() && !options.quiet && (seconds_since(last_progress) > 2.0 || steady || step == target)) {
      last_progress = clock::now();
      const double mlups = global_voxels * double(step - first_step) / compute_seconds / 1e6;
      const bool estimated = options.until_steady > 0 && steps_to_tolerance > 0;
      const double remaining = estimated ? std::min(steps_to_tolerance, double(target - step)) : double(target - step);
      const double eta = compute_seconds / double(step - first_step) * remaining;
      std::printf("  step %8ld  %9.1f MLUPS  residual %.3e  %s %s\n", step, mlups, residual,
                  options.steps > 0 ? "ETA" : (estimated ? "ETA ~" : "ETA <="), format_duration(eta).c_str());
      std::fflush(stdout);
    }
  }
  const double run_seconds = seconds_since(t_run);

  // Final fields: the writer's file, then the global fields on rank 0 for the case's outputs.
  const auto final_moments = solver->moments();
  const Divergence final_check = find_divergence(parallel, final_moments, part);
  if (final_check.found) {
    if (parallel.root()) std::fprintf(stderr, "karman: error: %s\n", divergence_message(final_check).c_str());
    return exit_diverged;
  }
  if (!options.no_fields && (options.output_every == 0 || solver->steps() % options.output_every != 0)) {
    write_fields(final_moments);
  }
  const double mass = parallel.sum(lbm::total_density(final_moments));
  const HostSlab h = to_host(final_moments);
  GlobalFields global{setup.global, parallel.gather(h.rho), parallel.gather(h.u[0]), parallel.gather(h.u[1]),
                      parallel.gather(h.u[2])};
  const long steps_here = long(solver->steps()) - first_step;
  const double mlups = compute_seconds > 0 ? global_voxels * double(steps_here) / compute_seconds / 1e6 : 0.0;
  const bool unconverged = options.until_steady > 0 && !steady;

  nlohmann::json summary;
  summary["case"] = def.name;
  summary["parameters"] = def.parameters;
  summary["variant"] = configuration["variant"];
  summary["run"] = {{"steps", options.steps},
                    {"until_steady", options.until_steady},
                    {"max_steps", options.max_steps},
                    {"check_every", check_every},
                    {"output", options.output},
                    {"output_every", options.output_every},
                    {"overlap", options.overlap},
                    {"schedule", options.schedule},
                    {"mpi_gpu_aware", options.mpi_gpu_aware},
                    {"halo_pack", options.halo_pack},
                    {"no_fields", options.no_fields},
                    {"checkpoint_every", options.checkpoint_every},
                    {"checkpoint_interval", options.checkpoint_interval}};
  summary["tau"] = 1.0 / setup.relaxation.omega;
  summary["extents"] = {setup.global.nx, setup.global.ny, setup.global.nz};
  summary["steps_run"] = solver->steps();
  summary["steady"] = steady;
  summary["final_residual"] = std::isfinite(residual) ? nlohmann::json(residual) : nlohmann::json(nullptr);
  summary["total_mass"] = mass;
  summary["mlups"] = mlups;
  summary["wall_seconds"] = run_seconds;
  summary["setup_seconds"] = std::chrono::duration<double>(t_run - t_setup).count();
  summary["population_bytes_per_rank"] = solver->population_bytes();
  summary["checkpoints"] = {{"written", checkpoints_written},
                            {"seconds", checkpoint_seconds},
                            {"bytes_each", checkpoint_bytes},
                            {"bytes_per_voxel", checkpoint_bytes / global_voxels}};
  if (!restarted_from.is_null()) summary["restarted_from"] = restarted_from;
  if (parallel.root()) {
    // A fingerprint of the final fields: runs that must agree bitwise (restarts, layouts, rank
    // counts) compare it.
    std::uint64_t sums[4];
    int i = 0;
    for (const auto* f : {&global.rho, &global.ux, &global.uy, &global.uz}) {
      sums[i++] = io::checksum(reinterpret_cast<const std::byte*>(f->data()), f->size() * sizeof(double));
    }
    const std::uint64_t fingerprint = io::checksum(reinterpret_cast<const std::byte*>(sums), sizeof sums);
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fingerprint));
    summary["fields_fnv1a64"] = text;
  }
  const auto info = backend_info();
  summary["backend"] = {{"kokkos_version", info.kokkos_version},
                        {"execution_space", info.default_backend},
                        {"device", info.device_name},
                        {"concurrency", info.concurrency}};
  summary["karman"] = {{"version", KARMAN_VERSION_STRING}, {"commit", KARMAN_GIT_COMMIT}};
#if KARMAN_ENABLE_MPI
  const auto stats = comm::gather_comm_stats(solver->comm_stats(), parallel.comm(), options.variant.layout,
                                             options.overlap && solver->uses_mpi(), solver->gpu_aware());
  nlohmann::json per_rank = nlohmann::json::array();
  for (const auto& r : stats.per_rank) {
    per_rank.push_back({{"rank", r.rank},
                        {"neighbours", r.neighbours},
                        {"messages_sent_per_step", r.messages_sent_per_step},
                        {"values_sent_per_step", r.values_sent_per_step},
                        {"exchange_seconds", r.exchange_seconds},
                        {"hidden_fraction", r.hidden_fraction}});
  }
  summary["comm"] = {{"ranks", stats.ranks},     {"halo_pack", options.halo_pack}, {"layout", stats.layout},
                     {"overlap", stats.overlap}, {"gpu_aware", stats.gpu_aware},   {"per_rank", per_rank}};
#endif
  if (parallel.root()) {
    if (def.finish) def.finish(global, dir, summary);
    io::write_json(dir / "summary.json", summary);
    std::printf("karman %s: %lld steps in %.2f s, %.1f MLUPS, residual %.3e, mass %.12g%s\n", def.name.c_str(),
                static_cast<long long>(solver->steps()), run_seconds, mlups, residual, mass, steady ? " (steady)" : "");
    std::printf("  output in %s: %ssummary.json\n", std::filesystem::absolute(dir).c_str(),
                options.no_fields ? "" : "fields.xdmf (open in ParaView), fields_*.h5, ");
  }
  if (unconverged) {
    if (parallel.root()) {
      std::fprintf(stderr,
                   "karman: warning: --max-steps %ld reached with residual %.3e above --until-steady %g; the "
                   "fields are written but not steady (exit code %d)\n",
                   options.max_steps, residual, options.until_steady, int(exit_not_converged));
    }
    return exit_not_converged;
  }
  return 0;
}

}  // namespace karman::app
