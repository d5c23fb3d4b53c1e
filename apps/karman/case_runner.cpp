#include "case_runner.hpp"
#include "checkpoint.hpp"
#include "dense_memory.hpp"
#include "divergence.hpp"
#include "host_memory.hpp"
#include "restart_policy.hpp"
#include "run_summary.hpp"
#include "stop_signals.hpp"

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
#include <karman/comm/gpu_aware.hpp>
#endif

#include <KokkosBlas1_nrm2.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

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

/// Relaxation times above this are viscosities the lattice cannot represent accurately (with
/// BGK the bounce-back wall moves with tau); tau <= 1/2 the cases refuse themselves.
constexpr double max_tau = 100.0;

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
    for (const ExtraField& extra : m_def.extra_fields) m_names.push_back(extra.name);
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
      auto s = m_def.make_solver ? m_def.make_solver(m_setup) : lbm::make_solver(m_setup);
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
    for (const ExtraField& extra : m_def.extra_fields) m_extra_values.push_back(extra.values(m_solver->owned_box()));
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
    if (m_def.started) m_def.started(*m_solver);
  }

  /// The checks of prepare() that run on every rank before anything is allocated.
  void validate() {
    const std::string& name = m_def.name;
    try {
      validate_run_options(m_options);
      if (m_def.grid && *m_def.grid != lbm::CompiledGrid::cartesian_blocks && !m_options.ranks_per_axis.empty()) {
        throw Error("--ranks-per-axis " + m_options.ranks_per_axis +
                    ": this case's grid divides itself between the ranks (block planes of the block-sparse grid, "
                    "docs/block_sparse.md); leave --ranks-per-axis out");
      }
      if (!m_options.ranks_per_axis.empty()) {
#if KARMAN_ENABLE_MPI
        m_setup.process_grid = m_options.ranks_per_axis == "auto"
                                   ? comm::default_process_grid(m_ranks.size(), m_dim)
                                   : comm::parse_process_grid(m_options.ranks_per_axis, m_ranks.size(), m_dim);
#else
        throw Error("--ranks-per-axis " + m_options.ranks_per_axis + " needs a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
      }
      lbm::require_compiled(m_options.variant, m_def.grid ? *m_def.grid
                                               : m_options.ranks_per_axis.empty()
                                                   ? lbm::CompiledGrid::slabs
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
    if (m_def.check_memory) {
      m_def.check_memory(m_ranks.size());
    } else {
      check_dense_memory(m_setup, m_ranks.size());
    }
  }

  void write_fields(const lbm::MomentFields& m) {
    const lbm::OwnedBox box = m_solver->owned_box();
    const int axis = box.global.slab_axis();
    HostSlab h = to_host(m);
    if (!box.is_slab()) {
      // Blocks: rank 0 writes the whole box, gathered in global order.
      h.rho = gather_in_global_order(m_ranks, m_boxes, h.rho);
      for (int d = 0; d < m_dim; ++d) h.u[d] = gather_in_global_order(m_ranks, m_boxes, h.u[d]);
      std::vector<std::vector<double>> extra;
      for (const auto& values : m_extra_values) extra.push_back(gather_in_global_order(m_ranks, m_boxes, values));
      m_ranks.run([&] {
        if (!m_ranks.root()) return;
        io::FieldSlab slab{0, box.global.extent(axis), {}};
        slab.datasets.push_back({h.rho.data(), h.rho.size()});
        for (int d = 0; d < m_dim; ++d) slab.datasets.push_back({h.u[d].data(), h.u[d].size()});
        for (const auto& values : extra) slab.datasets.push_back({values.data(), values.size()});
        m_writer->write(int(m_solver->steps()), double(m_solver->steps()), slab);
      });
      return;
    }
    io::FieldSlab slab{box.begin[std::size_t(axis)], box.extents.extent(axis), {}};
    slab.datasets.push_back({h.rho.data(), h.rho.size()});
    for (int d = 0; d < m_dim; ++d) slab.datasets.push_back({h.u[d].data(), h.u[d].size()});
    for (const auto& values : m_extra_values) slab.datasets.push_back({values.data(), values.size()});
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
            {"steady", m_steady},
            {"steady_figure", std::isfinite(m_figure) ? nlohmann::json(m_figure) : nlohmann::json(nullptr)}};
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
    // Checkpoints of the dense cases before the steady figure existed hold none (they need none).
    const nlohmann::json figure = history.value("steady_figure", nlohmann::json());
    m_figure = figure.is_null() ? std::numeric_limits<double>::quiet_NaN() : figure.get<double>();
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
    const std::string note = m_def.voxel_note ? m_def.voxel_note(d.x, d.y, d.z) : "";
    std::string message =
        "karman " + m_def.name + ": " + text + (note.empty() ? "" : ", on " + note) + "; " +
        (m_def.stability_advice.empty()
             ? stability_advice(m_options.variant, m_solver->owned_box().is_slab() && !m_setup.force_field &&
                                                       m_setup.immersed_body.empty())
             : m_def.stability_advice);
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
    unsigned local = stop_signal_received() != 0 ? stop_flag : 0;
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

  /// Voxels a step updates over all ranks: the case's count, or the box.
  double updated_voxels() const {
    return m_def.updated_voxels > 0 ? m_def.updated_voxels : double(m_setup.global.size());
  }

  /// The residual of a case's steady figure: its relative change since the last check (infinite
  /// at the first check, and while the figure is 0).
  double figure_change(double now) {
    const double before = m_figure;
    m_figure = now;
    if (!std::isfinite(before) || now == 0) return std::numeric_limits<double>::infinity();
    return std::fabs(now - before) / std::fabs(now);
  }

  /// The time steps until the target or a steady state; 0, or the exit code that ends the run
  /// early (divergence, stop signal).
  int loop() {
    const lbm::OwnedBox box = m_solver->owned_box();
    const double global_voxels = updated_voxels();
    // After a restart on a check step the monitor's snapshot is the one the interrupted run held,
    // so the residuals of later checks are the interrupted run's too.
    if (!m_candidates.empty() && m_first_step % m_check_every == 0 && !m_def.steady_figure) {
      (void)m_monitor.update(flatten(m_solver->moments()));
    }
    auto last_progress = clock::now();
    m_t_run = clock::now();
    m_setup_peak_host = peak_resident_bytes();
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
          const double before = m_residual;
          if (m_def.steady_figure) {
            m_residual = figure_change(m_def.steady_figure(m));
          } else {
            const auto u = flatten(m);
            m_residual = global_residual(m_ranks, m_monitor.update(u), u);
          }
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
        const int signal = int(m_ranks.max(double(stop_signal_received())));
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
        const std::string note = m_def.progress_note ? "  " + m_def.progress_note(m_figure) : std::string();
        std::printf("  step %8ld  %9.1f MLUPS  residual %s%s  %s\n", step, mlups, residual_text(m_residual).c_str(),
                    note.c_str(), eta_text(step, seconds_per_step, tolerance_step).c_str());
        std::fflush(stdout);
      }
    }
    m_run_seconds = seconds_since(m_t_run);
    return 0;
  }

  /// Final fields (the writer's file, then the global fields on rank 0 for the case's outputs),
  /// summary.json; the exit code.
  int finish() {
    const double global_voxels = updated_voxels();
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
    const double global_voxels = updated_voxels();
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
    const char* kind = m_def.grid == lbm::CompiledGrid::block_sparse ? "block_planes"
                       : m_setup.process_grid[0] > 0                 ? "blocks"
                                                                     : "slabs";
    summary["decomposition"] = {{"kind", kind}, {"process_grid", {box.grid[0], box.grid[1], box.grid[2]}}};
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
    summary["memory_per_rank"] = memory_per_rank(m_ranks, *m_solver, m_setup_peak_host);
    summary["checkpoints"] = {{"written", m_checkpoints_written},
                              {"seconds", m_checkpoint_seconds},
                              {"bytes_each", m_checkpoint_bytes},
                              {"bytes_per_voxel", m_checkpoint_bytes / double(m_setup.global.size())}};
    if (!m_restarted_from.is_null()) summary["restarted_from"] = m_restarted_from;
    add_provenance(summary);
    const nlohmann::json comm = comm_summary(m_ranks, *m_solver, m_options);
    if (!comm.is_null()) summary["comm"] = comm;
    return summary;
  }

  const comm::Ranks& m_ranks;
  const RunOptions& m_options;
  CaseDefinition& m_def;
  lbm::SolverSetup& m_setup;
  const std::filesystem::path m_dir;
  const clock::time_point m_t_setup;
  clock::time_point m_t_run;
  double m_setup_peak_host = 0;  ///< peak_resident_bytes() when the time loop starts
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
  double m_figure = std::numeric_limits<double>::quiet_NaN();  ///< the case's steady figure at the last check
  std::vector<std::vector<double>> m_extra_values;             ///< the case's extra fields on this rank's box
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
