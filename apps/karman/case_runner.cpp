#include "case_runner.hpp"

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/version.hpp>
#include <karman/io/box_geometry.hpp>
#include <karman/io/field_writer.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>
#include <karman/lbm/diagnostics/steady_state_monitor.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <KokkosBlas1_nrm2.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
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

}  // namespace

int run_case(const Parallel& parallel, const RunOptions& options, CaseDefinition& def) {
  const auto t_setup = clock::now();
  lbm::SolverSetup& setup = def.setup;
  setup.variant = options.variant;
  setup.rank = parallel.rank();
  setup.ranks = parallel.size();
  setup.overlap = options.overlap;
#if KARMAN_ENABLE_MPI
  setup.communicator = parallel.comm();
  setup.gpu_aware = comm::parse_gpu_aware_mode(options.mpi_gpu_aware);
  setup.pack_halos = options.halo_pack;
#endif
  const int dim = setup.global.dimension();
  const std::filesystem::path dir = options.output;
  std::vector<std::string> names = {"rho", "ux", "uy"};
  if (dim == 3) names.push_back("uz");

  // Everything that can fail on bad input happens here, before any file is written.
  auto built = collectively(parallel, [&] {
    if (options.steps == 0 && options.until_steady == 0) {
      throw Error("karman " + def.name + ": give --steps S or --until-steady TOL");
    }
    auto s = lbm::make_solver(setup);
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

  const auto& part = solver->partition();
  const double global_voxels = double(setup.global.size());
  const long check_every =
      options.check_every > 0 ? options.check_every : std::max(50L, long(10 * setup.global.extent(0)));
  const long target = options.steps > 0 ? options.steps : options.max_steps;
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
    writer.write(int(solver->steps()), double(solver->steps()), slab);
  };

  lbm::SteadyStateMonitor monitor;
  double residual = std::numeric_limits<double>::infinity();
  double compute_seconds = 0;
  auto last_progress = clock::now();
  const auto t_run = clock::now();
  bool steady = false;
  if (options.output_every > 0) write_fields(solver->moments());
  while (solver->steps() < target && !steady) {
    long chunk = std::min(check_every, target - long(solver->steps()));
    if (options.output_every > 0)
      chunk = std::min(chunk, options.output_every - long(solver->steps()) % options.output_every);
    const auto t0 = clock::now();
    solver->advance(int(chunk));
    Kokkos::fence();
    compute_seconds += seconds_since(t0);

    const long step = long(solver->steps());
    const bool check = step % check_every == 0 || step == target;
    const bool output = options.output_every > 0 && step % options.output_every == 0;
    if (check || output) {
      const auto m = solver->moments();
      if (check) {
        const auto u = flatten(m);
        residual = global_residual(parallel, monitor.update(u), u);
        const double mass = parallel.sum(lbm::total_density(m));
        if (!std::isfinite(mass)) {
          throw Error("karman " + def.name + ": the solution diverged (non-finite density) by step " +
                      std::to_string(step) + "; lower Re or the velocity, or raise the resolution");
        }
        steady = options.until_steady > 0 && residual < options.until_steady;
      }
      if (output) write_fields(m);
    }
    if (parallel.root() && !options.quiet && (seconds_since(last_progress) > 2.0 || steady || step == target)) {
      last_progress = clock::now();
      const double mlups = global_voxels * double(step) / compute_seconds / 1e6;
      const double eta = compute_seconds / double(step) * double(target - step);
      std::printf("  step %8ld  %9.1f MLUPS  residual %.3e  %s %s\n", step, mlups, residual,
                  options.steps > 0 ? "ETA" : "ETA <=", format_duration(eta).c_str());
      std::fflush(stdout);
    }
  }
  const double run_seconds = seconds_since(t_run);

  // Final fields: the writer's file, then the global fields on rank 0 for the case's outputs.
  const auto final_moments = solver->moments();
  if (!options.no_fields && (options.output_every == 0 || solver->steps() % options.output_every != 0)) {
    write_fields(final_moments);
  }
  const double mass = parallel.sum(lbm::total_density(final_moments));
  const HostSlab h = to_host(final_moments);
  GlobalFields global{setup.global, parallel.gather(h.rho), parallel.gather(h.u[0]), parallel.gather(h.u[1]),
                      parallel.gather(h.u[2])};
  const double mlups = global_voxels * double(solver->steps()) / compute_seconds / 1e6;

  nlohmann::json summary;
  summary["case"] = def.name;
  summary["parameters"] = def.parameters;
  summary["variant"] = {{"lattice", options.variant.lattice},
                        {"precision", options.variant.precision},
                        {"layout", options.variant.layout},
                        {"pattern", options.variant.pattern},
                        {"collision", options.variant.collision}};
  summary["run"] = {{"steps", options.steps},         {"until_steady", options.until_steady},
                    {"max_steps", options.max_steps}, {"check_every", check_every},
                    {"output", options.output},       {"output_every", options.output_every},
                    {"overlap", options.overlap},     {"mpi_gpu_aware", options.mpi_gpu_aware},
                    {"halo_pack", options.halo_pack}, {"no_fields", options.no_fields}};
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
  return 0;
}

}  // namespace karman::app
