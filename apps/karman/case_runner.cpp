#include "case_runner.hpp"
#include "host_memory.hpp"

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

#if KARMAN_ENABLE_MPI
#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/comm_stats.hpp>
#include <karman/comm/gpu_aware.hpp>
#endif

#include <KokkosBlas1_nrm2.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
double global_residual(const comm::Ranks& ranks, double local_relative, Kokkos::View<const double*> now) {
  if (ranks.size() == 1) return local_relative;
  const double norm = KokkosBlas::nrm2(now);
  const double change = norm > 0 ? local_relative * norm : local_relative;
  const double total = std::sqrt(ranks.sum(norm * norm));
  const double diff = std::sqrt(ranks.sum(change * change));
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

/// Every rank's owned box, on every rank (a collective call).
std::vector<lbm::OwnedBox> gather_boxes(const comm::Ranks& ranks, const lbm::OwnedBox& mine) {
  const std::vector<long long> all = ranks.all_gather(
      {mine.begin[0], mine.begin[1], mine.begin[2], mine.extents.nx, mine.extents.ny, mine.extents.nz});
  std::vector<lbm::OwnedBox> boxes(all.size() / 6, mine);
  for (std::size_t r = 0; r < boxes.size(); ++r) {
    for (std::size_t a = 0; a < 3; ++a) boxes[r].begin[a] = int(all[6 * r + a]);
    boxes[r].extents = {int(all[6 * r + 3]), int(all[6 * r + 4]), int(all[6 * r + 5])};
  }
  return boxes;
}

/// Every rank's owned values (in its box's order) on rank 0 in global order, x fastest; empty on
/// the other ranks. Slabs arrive in global order already; a block's values are placed by its box.
std::vector<double> gather_in_global_order(const comm::Ranks& ranks, const std::vector<lbm::OwnedBox>& boxes,
                                           const std::vector<double>& mine) {
  std::vector<double> all = ranks.gather(mine);
  if (!ranks.root() || boxes.empty() || boxes.front().is_slab()) return all;
  std::vector<double> out(all.size());
  std::size_t at = 0;
  for (const lbm::OwnedBox& box : boxes)
    for (index_t k = 0; k < box.size(); ++k) out[std::size_t(box.global_index(k))] = all[at++];
  return out;
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
/// counts the lattices (one AA, two AB) with their halos, the flags and the moments.
void check_memory(const lbm::SolverSetup& setup, int ranks) {
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

/// The steady-state residual for progress and final lines: "n/a" until a second check has
/// compared the velocity with an earlier one (short runs may end before).
std::string residual_text(double residual) {
  if (!std::isfinite(residual)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", residual);
  return text;
}

/// What a diverged run can change: the flow and resolution always, and a collision more robust
/// than its own where the lattice defines one and the run could use it (`moment_collisions`:
/// MRT and CM run on slabs without a per-voxel force field, lbm/solver_dispatch.hpp).
std::string stability_advice(const lbm::Variant& variant, bool moment_collisions) {
  const std::string collision = variant.collision.name();
  std::vector<std::string> cures;
  if (collision == "bgk") cures = {"trt"};
  if (collision == "trt" && moment_collisions) cures = {"cm", "mrt"};
  std::string named;
  for (const std::string& cure : cures) {
    if (lbm::collision_defined_for(cure, variant.lattice.name())) named += (named.empty() ? "" : " or ") + cure;
  }
  if (named.empty()) return "lower --re or the velocity, or raise the resolution";
  return "lower --re or the velocity, raise the resolution, or try --collision " + named;
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

/// Densities outside [0, this] count as diverged. Walls hold 0; fluid stays within a few per cent
/// of 1 at Mach < 0.3 and within max_delta_rho of it under a pressure drive. The bound must be
/// tight because FP16C has no NaN or infinity: a NaN or an overflow saturates the stored
/// deviation f_i - w_i at about +-2, so a voxel that pulls one such population reads a density
/// near 3 (or -1), not a NaN.
constexpr double max_sane_density = 2.0;

/// Velocity components beyond this, the lattice speed, count as diverged: non-negative
/// populations give |u_a| = |sum c_ia f_i| / sum f_i <= 1, and saturated FP16C deviations of both
/// signs can cancel in the density but not in the momentum.
constexpr double max_sane_velocity = 1.0;

/// Collective: the first owned voxel (in global order) whose density or velocity is not finite,
/// whose density lies outside [0, max_sane_density] or whose velocity exceeds max_sane_velocity
/// along an axis: in every precision, the 16-bit ones included. One reduction kernel over the
/// moments the check has computed anyway.
Divergence find_divergence(const comm::Ranks& ranks, const lbm::MomentFields& m, const lbm::OwnedBox& box) {
  const auto rho = m.rho;
  const auto u = m.u;
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "karman::find_divergence", Kokkos::RangePolicy<>(0, rho.extent(0)),
      KOKKOS_LAMBDA(const long long i, long long& found) {
        const double r = rho(i);
        // Comparisons with NaN are false, so NaN fails each range test.
        bool bad = !(r >= 0 && r <= max_sane_density);
        for (int a = 0; a < 3; ++a) bad = bad || !(u(i, a) >= -max_sane_velocity && u(i, a) <= max_sane_velocity);
        if (bad && i < found) found = i;
      },
      Kokkos::Min<long long>(first));
  // Box order and global order agree within a box (both z, y, x lexicographic), so the box's
  // first bad voxel is its first in global order.
  const Extents& g = box.global;
  const double local_first = first == LLONG_MAX ? -1.0 : double(box.global_index(first));
  // The lowest global index wins: maximise its negation (no bad voxel: -1 -> +1, never chosen).
  const double global_first = -ranks.max(local_first < 0 ? -std::numeric_limits<double>::max() : -local_first);
  Divergence d;
  if (global_first == std::numeric_limits<double>::max()) return d;
  d.found = true;
  std::vector<double> mine(5, -1.0);
  if (local_first == global_first) {
    // The voxel's row of u is strided (LayoutLeft), which a device-to-host deep_copy refuses:
    // gather its four values on the device first.
    Kokkos::View<double[4]> voxel("karman::divergent_voxel");
    const long long at = first;
    Kokkos::parallel_for(
        "karman::read_divergent_voxel", Kokkos::RangePolicy<>(0, 1), KOKKOS_LAMBDA(const int) {
          voxel(0) = rho(at);
          for (int a = 0; a < 3; ++a) voxel(1 + a) = u(at, a);
        });
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), voxel);
    mine = {global_first, host(0), host(1), host(2), host(3)};
  }
  const std::vector<double> all = ranks.gather(mine);
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
  const lbm::OwnedBox box = solver.owned_box();
  const Extents& g = box.global;
  const int centre[3] = {g.nx / 2, g.ny / 2, g.nz / 2};
  for (std::size_t a = 0; a < 3; ++a)
    if (centre[a] < box.begin[a] || centre[a] >= box.begin[a] + box.extents.extent(int(a))) return;
  const index_t voxel = box.extents.index(centre[0] - box.begin[0], centre[1] - box.begin[1], centre[2] - box.begin[2]);
  const std::size_t q = std::size_t(solver.populations()), size = std::size_t(solver.population_size());
  std::vector<std::byte> populations(std::size_t(box.size()) * q * size);
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
    // Axis, lo and hi of each parabola in use; a uniform boundary stores [-1, 0, 0].
    nlohmann::json profile = nlohmann::json::array();
    for (int k = 0; k < 2; ++k) {
      if (b.profile_axis[k] >= 0 || k == 0) {
        profile.insert(profile.end(), {b.profile_axis[k], b.profile_lo[k], b.profile_hi[k]});
      }
    }
    rows.push_back({{"rho", b.rho},
                    {"u", {b.u[0], b.u[1], b.u[2]}},
                    {"normal_axis", b.normal_axis},
                    {"normal_sign", b.normal_sign},
                    {"profile", profile}});
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

/// One run of a case in three phases: prepare() (everything that can fail on bad input, before
/// anything is allocated or written, then the solver, the field writer and a restart's state),
/// loop() (the time steps with checks, outputs, checkpoints, signals and progress) and finish()
/// (final fields, summary.json, the exit code).
class CaseRun {
 public:
  CaseRun(const comm::Ranks& ranks, const RunOptions& options, CaseDefinition& def)
      : m_ranks(ranks),
        m_options(options),
        m_def(def),
        m_setup(def.setup),
        m_dir(options.output),
        m_t_setup(clock::now()) {}

  /// The run's exit code: 0, or exit_diverged, exit_not_converged, or a stop signal's code.
  int run() {
    // SIGINT and SIGTERM are recorded, not fatal, from here to the end of the run: one that
    // arrives while the case is set up stops the run at its first step boundary.
    const StopSignals signals;
    prepare();
    if (const int code = loop(); code != 0) return code;
    return finish();
  }

 private:
  /// The solver setup from the options, and the configuration a checkpoint stores.
  void configure() {
    lbm::SolverSetup& setup = m_setup;
    setup.variant = m_options.variant;
    setup.relaxation.omega_bulk = m_options.bulk_rate;
    setup.relaxation.omega_high = m_options.high_order_rate;
    // The moment rates are physics: a restart compares them, summary.json records them.
    if (lbm::collision_has_moment_rates(m_options.variant.collision.name())) {
      m_def.parameters["bulk_rate"] = m_options.bulk_rate;
      m_def.parameters["high_order_rate"] = m_options.high_order_rate;
    }
    setup.rank = m_ranks.rank();
    setup.ranks = m_ranks.size();
    setup.overlap = m_options.overlap;
    setup.schedule = m_options.schedule == "fused" ? lbm::Schedule::fused : lbm::Schedule::split;
    setup.communicator = m_ranks;
#if KARMAN_ENABLE_MPI
    setup.gpu_aware = comm::parse_gpu_aware_mode(m_options.mpi_gpu_aware);
    setup.pack_halos = m_options.halo_pack;
#endif
    m_dim = setup.global.dimension();
    m_names = {"rho", "ux", "uy"};
    if (m_dim == 3) m_names.push_back("uz");
    m_check_every =
        m_options.check_every > 0 ? m_options.check_every : std::max(50L, long(10 * setup.global.extent(0)));
    m_target = m_options.steps > 0 ? m_options.steps : m_options.max_steps;

    m_configuration["case"] = m_def.name;
    m_configuration["parameters"] = m_def.parameters;
    m_configuration["variant"] = {{"lattice", m_options.variant.lattice.name()},
                                  {"precision", m_options.variant.precision.name()},
                                  {"layout", m_options.variant.layout.name()},
                                  {"pattern", m_options.variant.pattern.name()},
                                  {"collision", m_options.variant.collision.name()}};
    m_configuration["extents"] = {setup.global.nx, setup.global.ny, setup.global.nz};
    m_configuration["run"] = {{"steps", m_options.steps},
                              {"until_steady", m_options.until_steady},
                              {"max_steps", m_options.max_steps},
                              {"check_every", m_check_every},
                              {"output_every", m_options.output_every},
                              {"checkpoint_every", m_options.checkpoint_every},
                              {"checkpoint_interval", m_options.checkpoint_interval},
                              {"ranks", m_ranks.size()},
                              {"ranks_per_axis", m_options.ranks_per_axis}};
  }

  /// The boundaries and the geometry's fingerprint (one pass over the box) only when a checkpoint
  /// needs them: before its first write, or to compare with the one a restart reads.
  void describe_geometry() {
    if (m_configuration.contains("geometry_fnv1a64")) return;
    m_configuration["boundaries"] = boundary_table_json(m_setup.boundaries);
    m_configuration["geometry_fnv1a64"] = geometry_fingerprint(m_setup);
  }

  /// Everything that can fail on bad input happens first, before anything is allocated or
  /// written: options, the restart's checkpoint and its configuration, the output directory,
  /// the memory. Then the solver and the writer, and a restart's populations.
  void prepare() {
    configure();
    m_ranks.run([&] { validate(); });
    auto built = m_ranks.run([&] {
      auto s = lbm::make_solver(m_setup);
      const bool slabs = s->owned_box().is_slab();
      m_lock = claim_output_directory(m_dir, m_ranks.root(), m_options.overwrite);
      io::BoxGeometry box{m_setup.global,
                          {m_def.spacing, m_def.spacing, m_def.spacing},
                          {m_def.origin[0], m_def.origin[1], m_def.origin[2]}};
      // --no-fields runs hold no writer, so they also run where this karman has no HDF5.
      std::unique_ptr<io::FieldWriter> w;
      if (!m_options.no_fields && slabs) {
#if KARMAN_ENABLE_MPI
        w = std::make_unique<io::FieldWriter>(m_dir, box, m_names, m_ranks.comm());
#else
        w = std::make_unique<io::FieldWriter>(m_dir, box, m_names);
#endif
      } else if (!m_options.no_fields && m_ranks.root()) {
        // Blocks: the fields are gathered in global order and rank 0 writes them (write_fields).
        w = std::make_unique<io::FieldWriter>(m_dir, box, m_names);
      }
      return std::make_pair(std::move(s), std::move(w));
    });
    m_solver = std::move(built.first);
    m_writer = std::move(built.second);
    m_boxes = gather_boxes(m_ranks, m_solver->owned_box());
    if (!m_candidates.empty()) {
      const CheckpointManifest loaded = load_checkpoint(m_ranks, m_candidates, *m_solver);
      m_restarted_from = {{"checkpoint", loaded.directory.string()}, {"step", loaded.step}};
      restore_history(loaded.history());
      if (m_ranks.root()) {
        std::printf("karman %s: restarting from %s (step %lld)\n", m_def.name.c_str(), loaded.directory.c_str(),
                    loaded.step);
        for (const auto& note : m_restart_notes) std::printf("  %s\n", note.c_str());
      }
    }
    m_first_step = long(m_solver->steps());
    if (m_ranks.root()) {
      std::printf("karman %s: %dx%dx%d voxels, %s, %d rank(s), %s\n", m_def.name.c_str(), m_setup.global.nx,
                  m_setup.global.ny, m_setup.global.nz, m_solver->description().c_str(), m_ranks.size(),
                  Kokkos::DefaultExecutionSpace::name());
      std::printf("  tau %.6f, %s %s\n", 1.0 / m_setup.relaxation.omega,
                  m_options.steps > 0 ? "steps" : "until residual <",
                  m_options.steps > 0 ? std::to_string(m_options.steps).c_str()
                                      : std::to_string(m_options.until_steady).c_str());
      std::fflush(stdout);
    }
  }

  /// The checks of prepare() that run on every rank before anything is allocated.
  void validate() {
    const std::string& name = m_def.name;
    try {
      validate_run_options(m_options);
      if (!m_options.ranks_per_axis.empty()) {
#if KARMAN_ENABLE_MPI
        m_setup.process_grid = m_options.ranks_per_axis == "auto"
                                   ? comm::default_process_grid(m_ranks.size(), m_dim)
                                   : comm::parse_process_grid(m_options.ranks_per_axis, m_ranks.size(), m_dim);
#else
        throw Error("--ranks-per-axis " + m_options.ranks_per_axis + " needs a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
      }
      lbm::require_compiled(m_options.variant, m_options.ranks_per_axis.empty() ? lbm::CompiledGrid::slabs
                                                                                : lbm::CompiledGrid::cartesian_blocks);
    } catch (const Error& e) {
      throw Error("karman " + name + ": " + e.what());
    }
    std::error_code ec;
    if (std::filesystem::exists(m_dir, ec) && !std::filesystem::is_directory(m_dir, ec)) {
      throw Error("karman " + name + ": --output '" + m_dir.string() + "' exists and is not a directory");
    }
    if (!m_options.restart.empty()) {
      m_candidates = restart_candidates(m_options.restart, m_dir);
      // A checkpoint of the last step is that of a run killed before its outputs: the restart
      // steps no more and writes them.
      if (m_candidates.front().step > m_target) {
        throw Error("karman " + name + ": the checkpoint is at step " + std::to_string(m_candidates.front().step) +
                    " already; give --steps (or --max-steps) of at least that many");
      }
      describe_geometry();
      m_restart_notes = compare_configurations(m_candidates.front().configuration(), m_configuration, m_options.force);
    } else if (!m_options.overwrite) {
      const auto earlier = earlier_run_files_text(m_dir);
      if (!earlier.empty()) {
        throw Error("karman " + name + ": --output '" + m_dir.string() + "' holds an earlier run's files (" + earlier +
                    "); give --overwrite to replace them, --restart latest to continue that run, or " +
                    "another --output");
      }
    }
    const double tau = 1.0 / m_setup.relaxation.omega;
    if (!(tau <= max_tau)) {
      char text[160];
      std::snprintf(text, sizeof text, "tau = %.3g out of range (0.5, %g]", tau, max_tau);
      throw Error("karman " + name + ": " + text +
                  ": the viscosity is too large for the lattice; raise --re or lower the resolution");
    }
    check_memory(m_setup, m_ranks.size());
  }

  void write_fields(const lbm::MomentFields& m) {
    const lbm::OwnedBox box = m_solver->owned_box();
    const int axis = box.global.slab_axis();
    HostSlab h = to_host(m);
    if (!box.is_slab()) {
      // Blocks: rank 0 writes the whole box, gathered in global order.
      h.rho = gather_in_global_order(m_ranks, m_boxes, h.rho);
      for (int d = 0; d < m_dim; ++d) h.u[d] = gather_in_global_order(m_ranks, m_boxes, h.u[d]);
      m_ranks.run([&] {
        if (!m_ranks.root()) return;
        io::FieldSlab slab{0, box.global.extent(axis), {}};
        slab.datasets.push_back({h.rho.data(), h.rho.size()});
        for (int d = 0; d < m_dim; ++d) slab.datasets.push_back({h.u[d].data(), h.u[d].size()});
        m_writer->write(int(m_solver->steps()), double(m_solver->steps()), slab);
      });
      return;
    }
    io::FieldSlab slab{box.begin[std::size_t(axis)], box.extents.extent(axis), {}};
    slab.datasets.push_back({h.rho.data(), h.rho.size()});
    for (int d = 0; d < m_dim; ++d) slab.datasets.push_back({h.u[d].data(), h.u[d].size()});
    // A failure on any rank is a CollectiveError on every rank: all leave through main with one
    // message and code 1, none waits in a collective call.
    m_writer->write(int(m_solver->steps()), double(m_solver->steps()), slab);
  }

  /// A checkpoint now; its count, time and size go to summary.json.
  void write_checkpoint_now() {
    describe_geometry();
    const auto t0 = clock::now();
    m_checkpoint_bytes = write_checkpoint(m_ranks, m_dir, *m_solver, m_configuration, history_json());
    const double seconds = seconds_since(t0);
    m_checkpoint_seconds += seconds;
    ++m_checkpoints_written;
    m_last_checkpoint_step = long(m_solver->steps());
    m_last_checkpoint_time = clock::now();
    if (m_ranks.root() && !m_options.quiet) {
      std::printf("  checkpoint at step %ld: %s in %.2f s\n", m_last_checkpoint_step,
                  readable_bytes(m_checkpoint_bytes).c_str(), seconds);
      std::fflush(stdout);
    }
  }

  /// What the run has recorded so far, as a checkpoint stores it: the case's series and the
  /// residual of the last check (null while none was finite).
  nlohmann::json history_json() const {
    nlohmann::json series = nlohmann::json::object();
    for (const auto& [name, values] : m_def.history) series[name] = *values;
    return {{"series", series},
            {"residual", std::isfinite(m_residual) ? nlohmann::json(m_residual) : nlohmann::json(nullptr)},
            {"steady", m_steady}};
  }

  /// The history a restart's checkpoint stored; throws karman::Error when a series the case
  /// records is missing (a checkpoint of another case's build).
  void restore_history(const nlohmann::json& history) {
    const nlohmann::json& series = history.at("series");
    for (const auto& [name, values] : m_def.history) {
      if (!series.contains(name)) throw Error("--restart: the checkpoint holds no '" + name + "' history");
      *values = series.at(name).get<std::vector<double>>();
    }
    const nlohmann::json& residual = history.at("residual");
    m_residual = residual.is_null() ? std::numeric_limits<double>::infinity() : residual.get<double>();
    m_steady = history.at("steady").get<bool>();
  }

  /// Reports a diverged state on rank 0; the run's exit code.
  int diverged(const Divergence& d) const {
    if (!m_ranks.root()) return exit_diverged;
    char text[512];
    std::snprintf(text, sizeof text,
                  "the solution diverged by step %lld: voxel (x, y, z) = (%d, %d, %d) has rho = %g, u = (%g, %g, "
                  "%g) (accepted: 0 <= rho <= %g, |u_a| <= %g)",
                  static_cast<long long>(m_solver->steps()), d.x, d.y, d.z, d.rho, d.u[0], d.u[1], d.u[2],
                  max_sane_density, max_sane_velocity);
    std::string message = "karman " + m_def.name + ": " + text + "; " +
                          stability_advice(m_options.variant, m_solver->owned_box().is_slab() && !m_setup.force_field &&
                                                                  m_setup.immersed_body.empty());
    if (m_last_checkpoint_step >= 0) {
      message += "; the last good checkpoint (step " + std::to_string(m_last_checkpoint_step) + ") is kept";
    }
    std::fprintf(stderr, "karman: error: %s\n", message.c_str());
    return exit_diverged;
  }

  /// Flags the ranks agree on at step boundaries: a stop signal, and (rank 0's clock) a due
  /// --checkpoint-interval.
  static constexpr unsigned stop_flag = 1, interval_flag = 2;
  unsigned poll() const {
    unsigned local = stop_signal != 0 ? stop_flag : 0;
    if (m_ranks.root() && m_options.checkpoint_interval > 0 &&
        seconds_since(m_last_checkpoint_time) >= m_options.checkpoint_interval) {
      local |= interval_flag;
    }
    return m_ranks.size() > 1 ? m_ranks.bitwise_or(local) : local;
  }

  /// The progress line's end: "done" on the last step, else the time left: from the step count,
  /// or for a steady-state run from `tolerance_step`, where the residual's decay reaches the
  /// tolerance (0: unknown, it has not decayed yet), never from the --max-steps bound, which such
  /// runs seldom reach.
  std::string eta_text(long step, double seconds_per_step, double tolerance_step) const {
    if (step == m_target || m_steady) return "done";
    if (m_options.steps > 0) return "ETA " + format_duration(seconds_per_step * double(m_target - step));
    if (!(tolerance_step > 0)) return "ETA unknown";
    const double remaining = std::clamp(tolerance_step - double(step), 0.0, double(m_target - step));
    return "ETA ~" + format_duration(seconds_per_step * remaining);
  }

  static long next_multiple(long step, long every) { return (step / every + 1) * every; }

  /// The time steps until the target or a steady state; 0, or the exit code that ends the run
  /// early (divergence, stop signal).
  int loop() {
    const lbm::OwnedBox box = m_solver->owned_box();
    const double global_voxels = double(m_setup.global.size());
    // After a restart on a check step the monitor's snapshot is the one the interrupted run held,
    // so the residuals of later checks are the interrupted run's too.
    if (!m_candidates.empty() && m_first_step % m_check_every == 0) {
      (void)m_monitor.update(flatten(m_solver->moments()));
    }
    auto last_progress = clock::now();
    m_t_run = clock::now();
    // Several ranks poll every few steps: a reduction per step would cost.
    const long poll_every = m_ranks.size() > 1 ? 4 : 1;
    unsigned pending = 0;
    long last_check_step = m_first_step;
    double tolerance_step = 0;  // from the residual's decay; 0 while unknown
    if (m_options.output_every > 0 && m_candidates.empty()) write_fields(m_solver->moments());
    if (!m_candidates.empty()) {
      m_ranks.run([&] {
        if (m_ranks.root()) remove_fields_after(m_dir, m_first_step);
      });
    }
    if (m_options.output_every > 0 && !m_candidates.empty()) {
      m_ranks.run([&] {
        m_writer->adopt_earlier_steps(
            int(m_first_step), int(m_options.output_every),
            io::FieldSlab{
                box.begin[std::size_t(box.global.slab_axis())], box.extents.extent(box.global.slab_axis()), {}});
      });
    }
    // The first tenth of a run's steps sets up what later steps reuse (a GPU-aware MPI's IPC
    // handles, caches, clocks): a second rate leaves it out, as the bench's warm-up does.
    m_warmup_end = m_first_step + (m_target - m_first_step) / 10;
    while (m_solver->steps() < m_target && !m_steady) {
      long step = long(m_solver->steps());
      const long chunk_first = step;
      // Events fall on multiples of their periods, so a restarted run meets them where the
      // interrupted one did.
      long next = std::min(m_target, next_multiple(step, m_check_every));
      if (m_options.output_every > 0) next = std::min(next, next_multiple(step, m_options.output_every));
      if (m_options.checkpoint_every > 0) next = std::min(next, next_multiple(step, m_options.checkpoint_every));
      if (m_options.inject_nan > step) next = std::min(next, m_options.inject_nan);
      if (m_def.observe_every > 0) next = std::min(next, next_multiple(step, m_def.observe_every));
      if (step < m_warmup_end) next = std::min(next, m_warmup_end);
      const auto t0 = clock::now();
      while (step < next) {
        const long n = std::min(poll_every - step % poll_every, next - step);
        m_solver->advance(int(n));
        step += n;
        if (step % poll_every == 0 || step == next) pending |= poll();
        // A checkpoint needs the whole state in the owned voxels (AA: an even step).
        if (pending != 0 && m_solver->populations_complete()) break;
      }
      Kokkos::fence();
      const double chunk_seconds = seconds_since(t0);
      m_compute_seconds += chunk_seconds;
      if (chunk_first >= m_warmup_end) {
        m_after_warmup_seconds += chunk_seconds;
        m_after_warmup_steps += step - chunk_first;
      }

      if (m_def.observe && m_def.observe_every > 0 && step % m_def.observe_every == 0) m_def.observe(*m_solver);
      if (step == m_options.inject_nan) inject_nan(*m_solver, m_options.variant.precision);
      const bool check = step % m_check_every == 0 || step == m_target;
      const bool output = m_options.output_every > 0 && step % m_options.output_every == 0;
      const bool stop_now = (pending & stop_flag) != 0 && m_solver->populations_complete();
      const bool checkpoint = (m_options.checkpoint_every > 0 && step % m_options.checkpoint_every == 0) ||
                              (pending != 0 && m_solver->populations_complete());
      if (check || output || checkpoint) {
        const auto m = m_solver->moments();
        // Nothing is written from a diverged state: the check comes first.
        const Divergence d = find_divergence(m_ranks, m, box);
        if (d.found) return diverged(d);
        if (check) {
          const auto u = flatten(m);
          const double before = m_residual;
          m_residual = global_residual(m_ranks, m_monitor.update(u), u);
          m_steady = m_options.until_steady > 0 && m_residual < m_options.until_steady;
          // The residual of a steady-state run decays about exponentially: its last two values
          // say how many steps remain to the tolerance (the ETA of the progress line).
          if (std::isfinite(before) && m_residual < before && m_residual > 0) {
            const double rate = std::log(before / m_residual) / double(step - last_check_step);
            tolerance_step = double(step) + std::log(m_residual / m_options.until_steady) / rate;
          } else {
            tolerance_step = 0;  // not decaying: no estimate
          }
          last_check_step = step;
        }
        if (output) write_fields(m);
        if (checkpoint) write_checkpoint_now();
      }
      if (stop_now) {
        const int signal = int(m_ranks.max(double(stop_signal)));
        if (m_ranks.root() && checkpoint) {
          std::fprintf(stderr,
                       "karman: stopped by %s after step %ld; checkpoint written to %s/checkpoints. Continue with "
                       "the same command and --restart latest (exit code %d)\n",
                       signal == SIGINT ? "SIGINT" : "SIGTERM", step, m_dir.c_str(), exit_signal_offset + signal);
        } else if (m_ranks.root()) {
          std::fprintf(stderr,
                       "karman: stopped by %s after step %ld; no checkpoint (--ranks-per-axis runs write none) "
                       "(exit code %d)\n",
                       signal == SIGINT ? "SIGINT" : "SIGTERM", step, exit_signal_offset + signal);
        }
        return exit_signal_offset + signal;
      }
      if (checkpoint) pending = 0;
      if (m_ranks.root() && !m_options.quiet && (seconds_since(last_progress) > 2.0 || m_steady || step == m_target)) {
        last_progress = clock::now();
        const double mlups = global_voxels * double(step - m_first_step) / m_compute_seconds / 1e6;
        const double seconds_per_step = m_compute_seconds / double(step - m_first_step);
        std::printf("  step %8ld  %9.1f MLUPS  residual %s  %s\n", step, mlups, residual_text(m_residual).c_str(),
                    eta_text(step, seconds_per_step, tolerance_step).c_str());
        std::fflush(stdout);
      }
    }
    m_run_seconds = seconds_since(m_t_run);
    return 0;
  }

  /// Final fields (the writer's file, then the global fields on rank 0 for the case's outputs),
  /// summary.json; the exit code.
  int finish() {
    const double global_voxels = double(m_setup.global.size());
    const auto final_moments = m_solver->moments();
    const Divergence final_check = find_divergence(m_ranks, final_moments, m_solver->owned_box());
    if (final_check.found) return diverged(final_check);
    if (!m_options.no_fields && (m_options.output_every == 0 || m_solver->steps() % m_options.output_every != 0)) {
      write_fields(final_moments);
    }
    const double mass = m_ranks.sum(lbm::total_density(final_moments));
    const HostSlab h = to_host(final_moments);
    GlobalFields global{m_setup.global, gather_in_global_order(m_ranks, m_boxes, h.rho),
                        gather_in_global_order(m_ranks, m_boxes, h.u[0]),
                        gather_in_global_order(m_ranks, m_boxes, h.u[1]),
                        gather_in_global_order(m_ranks, m_boxes, h.u[2])};
    const long steps_here = long(m_solver->steps()) - m_first_step;
    const double mlups = m_compute_seconds > 0 ? global_voxels * double(steps_here) / m_compute_seconds / 1e6 : 0.0;
    const bool unconverged = m_options.until_steady > 0 && !m_steady;

    nlohmann::json summary = summary_json(mass, mlups);
    if (m_ranks.root()) summary["fields_fnv1a64"] = fields_fingerprint(global);
    if (m_ranks.root()) {
      if (m_def.finish) m_def.finish(global, m_dir, summary);
      io::write_json(m_dir / "summary.json", summary);
      std::printf("karman %s: %lld steps in %.2f s, %.1f MLUPS, residual %s, mass %.12g%s\n", m_def.name.c_str(),
                  static_cast<long long>(m_solver->steps()), m_run_seconds, mlups, residual_text(m_residual).c_str(),
                  mass, m_steady ? " (steady)" : "");
      std::printf("  output in %s: %ssummary.json\n", std::filesystem::absolute(m_dir).c_str(),
                  m_options.no_fields ? "" : "fields.xdmf (open in ParaView), fields_*.h5, ");
    }
    if (unconverged) {
      if (m_ranks.root()) {
        std::fprintf(stderr,
                     "karman: warning: --max-steps %ld reached with residual %.3e above --until-steady %g; the "
                     "fields are written but not steady (exit code %d)\n",
                     m_options.max_steps, m_residual, m_options.until_steady, int(exit_not_converged));
      }
      return exit_not_converged;
    }
    return 0;
  }

  /// summary.json but for the case's own entries and the fields' fingerprint (collective under
  /// MPI: the ranks' exchange counters are gathered).
  nlohmann::json summary_json(double mass, double mlups) const {
    const double global_voxels = double(m_setup.global.size());
    nlohmann::json summary;
    summary["case"] = m_def.name;
    summary["parameters"] = m_def.parameters;
    summary["variant"] = m_configuration.at("variant");
    summary["run"] = {{"steps", m_options.steps},
                      {"until_steady", m_options.until_steady},
                      {"max_steps", m_options.max_steps},
                      {"check_every", m_check_every},
                      {"output", m_options.output},
                      {"output_every", m_options.output_every},
                      {"overlap", m_options.overlap},
                      {"ranks_per_axis", m_options.ranks_per_axis},
                      {"schedule", m_options.schedule},
                      {"mpi_gpu_aware", m_options.mpi_gpu_aware},
                      {"halo_pack", m_options.halo_pack},
                      {"no_fields", m_options.no_fields},
                      {"checkpoint_every", m_options.checkpoint_every},
                      {"checkpoint_interval", m_options.checkpoint_interval}};
    summary["tau"] = 1.0 / m_setup.relaxation.omega;
    summary["extents"] = {m_setup.global.nx, m_setup.global.ny, m_setup.global.nz};
    // Ranks along x, y, z: 1x1xN (1xN in 2D) for slabs, the --ranks-per-axis grid for blocks.
    const lbm::OwnedBox box = m_solver->owned_box();
    summary["decomposition"] = {{"kind", m_setup.process_grid[0] > 0 ? "blocks" : "slabs"},
                                {"process_grid", {box.grid[0], box.grid[1], box.grid[2]}}};
    summary["steps_run"] = m_solver->steps();
    summary["steady"] = m_steady;
    summary["final_residual"] = std::isfinite(m_residual) ? nlohmann::json(m_residual) : nlohmann::json(nullptr);
    summary["total_mass"] = mass;
    summary["mlups"] = mlups;
    summary["warmup_steps"] = m_warmup_end - m_first_step;
    summary["mlups_after_warmup"] =
        m_after_warmup_seconds > 0
            ? nlohmann::json(global_voxels * double(m_after_warmup_steps) / m_after_warmup_seconds / 1e6)
            : nlohmann::json(nullptr);
    summary["wall_seconds"] = m_run_seconds;
    summary["setup_seconds"] = std::chrono::duration<double>(m_t_run - m_t_setup).count();
    summary["population_bytes_per_rank"] = m_solver->population_bytes();
    summary["checkpoints"] = {{"written", m_checkpoints_written},
                              {"seconds", m_checkpoint_seconds},
                              {"bytes_each", m_checkpoint_bytes},
                              {"bytes_per_voxel", m_checkpoint_bytes / global_voxels}};
    if (!m_restarted_from.is_null()) summary["restarted_from"] = m_restarted_from;
    add_provenance(summary);
#if KARMAN_ENABLE_MPI
    const auto stats = comm::gather_comm_stats(m_solver->comm_stats(), m_ranks.comm(), m_options.variant.layout,
                                               m_options.overlap && m_solver->uses_mpi(), m_solver->gpu_aware());
    nlohmann::json per_rank = nlohmann::json::array();
    for (const auto& r : stats.per_rank) {
      // Table III's counts split by the kind of neighbour (a slab's are all faces).
      nlohmann::json by_kind;
      const char* kinds[neighbour_kinds] = {"face", "edge", "corner"};
      for (int k = 0; k < neighbour_kinds; ++k) {
        by_kind[kinds[k]] = {{"messages_sent_per_step", r.messages_sent_per_step_by_kind[k]},
                             {"values_sent_per_step", r.values_sent_per_step_by_kind[k]}};
      }
      per_rank.push_back({{"rank", r.rank},
                          {"neighbours", r.neighbours},
                          {"messages_sent_per_step", r.messages_sent_per_step},
                          {"values_sent_per_step", r.values_sent_per_step},
                          {"by_neighbour_kind", by_kind},
                          {"exchange_seconds", r.exchange_seconds},
                          {"hidden_fraction", r.hidden_fraction}});
    }
    summary["comm"] = {{"ranks", stats.ranks},     {"halo_pack", m_options.halo_pack}, {"layout", stats.layout},
                       {"overlap", stats.overlap}, {"gpu_aware", stats.gpu_aware},     {"per_rank", per_rank}};
#endif
    return summary;
  }

  /// A fingerprint of the final fields: runs that must agree bitwise (restarts, layouts, rank
  /// counts) compare it.
  static std::string fields_fingerprint(const GlobalFields& global) {
    std::uint64_t sums[4];
    int i = 0;
    for (const auto* f : {&global.rho, &global.ux, &global.uy, &global.uz}) {
      sums[i++] = io::checksum(reinterpret_cast<const std::byte*>(f->data()), f->size() * sizeof(double));
    }
    const std::uint64_t fingerprint = io::checksum(reinterpret_cast<const std::byte*>(sums), sizeof sums);
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fingerprint));
    return text;
  }

  const comm::Ranks& m_ranks;
  const RunOptions& m_options;
  CaseDefinition& m_def;
  lbm::SolverSetup& m_setup;
  const std::filesystem::path m_dir;
  const clock::time_point m_t_setup;
  clock::time_point m_t_run;
  int m_dim = 3;
  std::vector<std::string> m_names;  ///< field datasets: rho, ux, uy (, uz)
  long m_check_every = 0;
  long m_target = 0;                             ///< the last step: --steps, or --max-steps for a steady-state run
  nlohmann::json m_configuration;                ///< what a checkpoint stores and a restart compares against
  std::vector<CheckpointManifest> m_candidates;  ///< a restart's checkpoints, newest first
  std::vector<std::string> m_restart_notes;
  nlohmann::json m_restarted_from;
  std::unique_ptr<lbm::FlowSolver> m_solver;
  std::vector<lbm::OwnedBox> m_boxes;         ///< every rank's owned box (gathers in global order)
  std::unique_ptr<io::DirectoryLock> m_lock;  ///< rank 0's hold on the output directory
  std::unique_ptr<io::FieldWriter> m_writer;  ///< none with --no-fields
  long m_first_step = 0;
  lbm::SteadyStateMonitor m_monitor;
  double m_residual = std::numeric_limits<double>::infinity();
  bool m_steady = false;
  double m_compute_seconds = 0, m_run_seconds = 0;
  long m_warmup_end = 0;  ///< the first step after the warm-up (the first tenth of the steps run here)
  double m_after_warmup_seconds = 0;
  long m_after_warmup_steps = 0;
  int m_checkpoints_written = 0;
  double m_checkpoint_seconds = 0, m_checkpoint_bytes = 0;
  long m_last_checkpoint_step = -1;
  clock::time_point m_last_checkpoint_time = clock::now();
};

}  // namespace

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
double available_host_bytes() { return read_memory_readings().available; }

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

void add_provenance(nlohmann::json& summary) {
  const auto info = backend_info();
  summary["backend"] = {{"kokkos_version", info.kokkos_version},
                        {"execution_space", info.default_backend},
                        {"device", info.device_name},
                        {"concurrency", info.concurrency}};
  summary["karman"] = {{"version", KARMAN_VERSION_STRING}, {"commit", KARMAN_GIT_COMMIT}};
}

std::unique_ptr<io::DirectoryLock> claim_output_directory(const std::filesystem::path& directory, bool root,
                                                          bool overwrite) {
  io::prepare_output_directory(directory);
  std::unique_ptr<io::DirectoryLock> lock;
  if (root) {
    lock = std::make_unique<io::DirectoryLock>(directory);
    if (overwrite) {
      const std::vector<std::string> removed = io::remove_earlier_run_files(directory);
      std::string names;
      for (const std::string& name : removed) names += " " + name;
      std::printf("karman: --overwrite removed %zu file(s) an earlier run listed in %s/%s%s%s\n", removed.size(),
                  directory.c_str(), io::manifest_name, removed.empty() ? "" : ":", names.c_str());
    }
  }
  io::record_outputs_in(directory);
  return lock;
}

int run_case(const comm::Ranks& ranks, const RunOptions& options, CaseDefinition& def) {
  return CaseRun(ranks, options, def).run();
}

}  // namespace karman::app
