#include <karman/perf/scaling_bench.hpp>

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <fstream>

#if KARMAN_ENABLE_MPI
#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/gpu_aware.hpp>
#include <karman/comm/ranks.hpp>
#endif

namespace karman::perf {

#if KARMAN_ENABLE_MPI
namespace {

/// Global box of one variant: weak scaling stacks one n^3 (n^2) block per rank along the slab axis.
Extents scaled_box(const std::string& mode, bool three_d, int n, int ranks) {
  const int planes = mode == "weak" ? n * ranks : n;
  return three_d ? Extents{n, n, planes} : Extents{n, planes, 1};
}

ScalingRecord run_one(const lbm::Variant& variant, const BenchOptions& o, const ScalingOptions& s,
                      const comm::Ranks& all) {
  const bool three_d = lbm::lattice_dimension(variant.lattice) == 3;
  const int n = o.n > 0 ? o.n : default_edge(variant.lattice);
  lbm::SolverSetup setup;
  setup.variant = variant;
  setup.global = scaled_box(s.mode, three_d, n, all.size());
  setup.periodic = {true, true, true};
  setup.relaxation.omega = 1.0 / 0.6;
  // A small shear wave along the slab axis, so the fluid moves and halos carry real values.
  const int planes = setup.global.extent(three_d ? 2 : 1);
  setup.initial = [planes, three_d](int, int y, int z) {
    lbm::FlowState st;
    st.u[0] = 0.02 * std::sin(2.0 * M_PI * (three_d ? z : y) / planes);
    return st;
  };
  setup.rank = all.rank();
  setup.ranks = all.size();
  setup.overlap = s.overlap;
  setup.pack_halos = s.halo_pack;
  setup.communicator = all;
  setup.gpu_aware = comm::parse_gpu_aware_mode(s.gpu_aware);
  // Bad sizes (too few planes for the ranks) and grids fail on every rank together, with one message.
  auto solver = all.run([&] {
    if (!s.ranks_per_axis.empty()) {
      const int dim = three_d ? 3 : 2;
      setup.process_grid = s.ranks_per_axis == "auto" ? comm::default_process_grid(all.size(), dim)
                                                      : comm::parse_process_grid(s.ranks_per_axis, all.size(), dim);
    }
    return lbm::make_solver(setup);
  });

  const int steps = o.steps > 0 ? o.steps : default_steps();
  solver->advance(o.warmup >= 0 ? o.warmup : std::max(2, steps / 5 / 2 * 2));
  Kokkos::fence();
  solver->reset_comm_stats();
  all.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  solver->advance(steps);
  Kokkos::fence();
  const double local_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double seconds = all.max(local_seconds);

  const auto stats = solver->comm_stats();
  const std::int64_t owned = solver->owned_box().size();
  // Six figures per rank, in rank order on rank 0.
  const std::vector<double> figures =
      all.gather({double(owned), double(owned) * steps / local_seconds / 1e6, stats.exchange_seconds,
                  stats.hidden_fraction, stats.messages_sent_per_step, stats.values_sent_per_step});

  const BackendInfo info = backend_info();
  ScalingRecord r;
  r.mode = s.mode;
  r.lattice = variant.lattice;
  r.precision = variant.precision;
  r.layout = variant.layout;
  r.pattern = variant.pattern;
  r.collision = variant.collision;
  r.n = n;
  r.ranks = all.size();
  r.global = setup.global;
  r.steps = steps;
  r.seconds = seconds;
  r.mlups_total = double(setup.global.size()) * steps / seconds / 1e6;
  r.overlap = s.overlap;
  r.halo_pack = s.halo_pack;
  r.gpu_aware = solver->gpu_aware();
  r.process_grid = solver->owned_box().grid;
  r.backend = info.default_backend;
  r.device = info.device_name;
  for (int k = 0; 6 * std::size_t(k) < figures.size(); ++k) {
    const double* v = &figures[6 * std::size_t(k)];
    r.per_rank.push_back({k, std::int64_t(v[0]), v[1], v[2], v[3], v[4], v[5]});
  }
  return r;
}

}  // namespace
#endif

std::vector<ScalingRecord> run_scaling(const BenchOptions& options, const ScalingOptions& scaling) {
  if (scaling.mode != "weak" && scaling.mode != "strong") {
    throw Error("karman bench: --scaling '" + scaling.mode + "' is not one of: weak, strong");
  }
#if KARMAN_ENABLE_MPI
  const comm::Ranks all(MPI_COMM_WORLD);
  std::vector<std::string> missing;
  all.run([&] {
    validate(options);
    missing = uncompiled_variants(options);
  });
  if (all.root()) report_passed_over(missing);
  std::vector<ScalingRecord> records;
  for (const auto& lattice : options.lattices)
    for (const auto& precision : options.precisions)
      for (const auto& layout : options.layouts)
        for (const auto& pattern : options.patterns)
          for (const auto& collision : options.collisions)
            if (lbm::collision_defined_for(collision, lattice) && lbm::is_compiled(lattice, precision, layout))
              records.push_back(
                  run_one(lbm::Variant{lattice, precision, layout, collision, pattern}, options, scaling, all));
  return records;
#else
  validate(options);
  throw Error("karman bench --scaling needs a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
}

void write_scaling_json(const std::string& path, const std::vector<ScalingRecord>& records) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : records) {
    nlohmann::json per_rank = nlohmann::json::array();
    for (const auto& p : r.per_rank) {
      per_rank.push_back({{"rank", p.rank},
                          {"voxels", p.voxels},
                          {"mlups", p.mlups},
                          {"exchange_seconds", p.exchange_seconds},
                          {"hidden_fraction", p.hidden_fraction},
                          {"messages_sent_per_step", p.messages_sent_per_step},
                          {"values_sent_per_step", p.values_sent_per_step}});
    }
    out.push_back({{"scaling", r.mode},
                   {"lattice", r.lattice},
                   {"precision", r.precision},
                   {"layout", r.layout},
                   {"pattern", r.pattern},
                   {"collision", r.collision},
                   {"n", r.n},
                   {"ranks", r.ranks},
                   {"global", {r.global.nx, r.global.ny, r.global.nz}},
                   {"steps", r.steps},
                   {"seconds", r.seconds},
                   {"mlups_total", r.mlups_total},
                   {"overlap", r.overlap},
                   {"halo_pack", r.halo_pack},
                   {"gpu_aware", r.gpu_aware},
                   {"process_grid", r.process_grid},
                   {"backend", r.backend},
                   {"device", r.device},
                   {"per_rank", per_rank}});
  }
  std::ofstream file(path);
  if (!(file << out.dump(2) << '\n')) throw Error("karman bench: cannot write " + path);
}

}  // namespace karman::perf
