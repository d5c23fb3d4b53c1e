#include <karman/perf/bench.hpp>

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/version.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/immersed_body.hpp>
#include <karman/lbm/lagrangian_markers.hpp>
#include <karman/lbm/solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

namespace karman::perf {
namespace {

void require_names(const char* what, const std::vector<std::string>& names, const std::vector<std::string>& accepted) {
  std::string list;
  for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a;
  if (names.empty()) throw Error(std::string("karman bench: no ") + what + " given; accepted: " + list);
  for (const auto& name : names) {
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end())
      throw Error(std::string("karman bench: ") + what + " '" + name + "' not one of " + list);
  }
}

bool two_d(const std::string& lattice) { return lbm::lattice_dimension(lattice) == 2; }

/// A shear wave in every velocity component (a fluid at rest would time a kernel whose
/// arithmetic the compiler or the hardware may shortcut), small enough (Mach 0.03) to stay
/// stable for any number of steps at tau = 0.6.
std::function<lbm::FlowState(int, int, int)> shear_waves(int n, bool three_d) {
  constexpr double amplitude = 0.02;
  constexpr double two_pi = 6.283185307179586;
  auto wave = std::make_shared<std::vector<double>>(n);
  for (int i = 0; i < n; ++i) (*wave)[i] = amplitude * std::sin(two_pi * i / n);
  return [wave, three_d](int x, int y, int z) {
    lbm::FlowState s;
    s.u[0] = (*wave)[y];
    s.u[1] = three_d ? (*wave)[z] : (*wave)[x];
    s.u[2] = three_d ? (*wave)[x] : 0.0;
    return s;
  };
}

int resolved_steps(const BenchOptions& o) { return o.steps > 0 ? o.steps : default_steps(); }
int resolved_warmup(const BenchOptions& o) {
  return o.warmup >= 0 ? o.warmup : std::max(2, resolved_steps(o) / 5 / 2 * 2);
}
int resolved_edge(const BenchOptions& o, const std::string& lattice) { return o.n > 0 ? o.n : default_edge(lattice); }
std::int64_t resolved_markers(const BenchOptions& o) { return o.markers > 0 ? o.markers : default_markers(); }

/// The markers of case ib: sphere_array's spheres (circles in 2D) in the cells of a k^dimension
/// array, each centred in its cell (voxel i sits at coordinate i), held at rest by
/// immersed-boundary forcing with the cylinder case's settings (Roma kernel, three iterations).
lbm::ImmersedBody sphere_array_body(int n, int dimension, const SphereArray& a, int marker_block) {
  const double pi = 3.14159265358979323846, cell = double(n) / a.per_axis;
  lbm::ImmersedBody body;
  auto& m = body.markers;
  for (int l = 0; l < (dimension == 3 ? a.per_axis : 1); ++l)
    for (int j = 0; j < a.per_axis; ++j)
      for (int i = 0; i < a.per_axis; ++i) {
        const std::array<double, 3> c{(i + 0.5) * cell - 0.5, (j + 0.5) * cell - 0.5,
                                      dimension == 3 ? (l + 0.5) * cell - 0.5 : 0.0};
        const lbm::MarkerSet s = dimension == 3 ? lbm::sphere_markers(c, a.radius, a.markers_per_sphere)
                                                : lbm::circle_markers(c[0], c[1], 0.0, a.radius, a.markers_per_sphere);
        m.position.insert(m.position.end(), s.position.begin(), s.position.end());
        m.area.insert(m.area.end(), s.area.begin(), s.area.end());
        body.volume += dimension == 3 ? 4.0 / 3.0 * pi * a.radius * a.radius * a.radius : pi * a.radius * a.radius;
      }
  body.kernel = lbm::DeltaKernel::roma3;
  body.forcing_iterations = 3;
  body.marker_block = marker_block;
  return body;
}

/// Whether case ib runs a variant: immersed boundaries need the per-voxel force field, compiled
/// for AB with BGK and TRT (solver_dispatch.hpp).
bool runs_immersed_boundaries(const std::string& pattern, const std::string& collision) {
  return pattern == "ab" && (collision == "bgk" || collision == "trt");
}

/// The setup of one benchmark case on an n^3 (n^2 in 2D) box, walls included.
/// `spheres` and `marker_block` place case ib's markers.
lbm::SolverSetup case_setup(const std::string& name, const lbm::Variant& variant, int n, const SphereArray& spheres,
                            int marker_block) {
  const bool three_d = !two_d(variant.lattice);
  if (name == "cavity") {
    // Ghia's cavity at Re 100 with the lid at Mach 0.17: the flow develops in every voxel.
    lbm::cases::CavityParams p;
    p.dim = three_d ? 3 : 2;
    p.n = n - 2;
    p.reynolds = 100;
    return lbm::cases::cavity_setup(p, variant);
  }
  if (name == "channel") {
    // Walls at y, periodic along z, regularized pressure inlet and outlet at the x ends.
    lbm::cases::ChannelParams p;
    p.dim = three_d ? 3 : 2;
    p.height = n - 2;
    p.length = n;
    p.depth = n;
    // nu = 0.1 (tau = 0.8) at any size: the lattice viscosity of a resolved channel.
    p.reynolds = p.max_velocity * p.height / 0.1;
    p.drive = lbm::cases::ChannelDrive::pressure_drop;
    return lbm::cases::channel_setup(p, variant);
  }
  lbm::SolverSetup setup;
  setup.variant = variant;
  setup.global = three_d ? Extents{n, n, n} : Extents{n, n, 1};
  setup.periodic = {true, true, true};
  setup.initial = shear_waves(n, three_d);
  setup.relaxation.omega = 1.0 / 0.6;
  if (name == "ib") {
    setup.immersed_body = sphere_array_body(n, three_d ? 3 : 2, spheres, marker_block);
  }
  return setup;
}

BenchRecord run_variant(const std::string& case_name, const std::string& schedule, int tile, int marker_block,
                        const lbm::Variant& variant, const BenchOptions& o, const CopyBandwidth& copy,
                        const BackendInfo& info) {
  const int n = resolved_edge(o, variant.lattice);
  const int dimension = two_d(variant.lattice) ? 2 : 3;
  const SphereArray spheres = case_name == "ib" ? sphere_array(n, dimension, resolved_markers(o)) : SphereArray{};
  lbm::SolverSetup setup = case_setup(case_name, variant, n, spheres, marker_block);
  setup.schedule = schedule == "fused" ? lbm::Schedule::fused : lbm::Schedule::split;
  setup.schedule_tile = tile;
  // One rank: the periodic slab halo is a local copy on the kernel's own instance, so a step
  // is one asynchronous sequence of launches with no host synchronisation.
  setup.overlap = false;
  auto solver = lbm::make_solver(setup);

  BenchRecord r;
  r.case_name = case_name;
  r.schedule = case_name == "box" || case_name == "ib" ? "none" : schedule;
  r.tile = tile;
  r.lattice = variant.lattice;
  r.precision = variant.precision;
  r.layout = variant.layout;
  r.pattern = variant.pattern;
  r.collision = variant.collision;
  r.n = n;
  r.voxels = setup.global.size();
  if (case_name == "ib") {
    r.markers = std::int64_t(setup.immersed_body.markers.size());
    r.spheres =
        dimension == 2 ? spheres.per_axis * spheres.per_axis : spheres.per_axis * spheres.per_axis * spheres.per_axis;
    r.sphere_radius = spheres.radius;
    r.marker_block = marker_block;
  }
  r.steps = resolved_steps(o);
  r.warmup = resolved_warmup(o);
  r.repeat = o.repeat;

  const double mass_before = solver->local_mass();
  solver->advance(r.warmup);
  compat::fence("karman::perf::warmup");
  std::vector<double> seconds;
  for (int s = 0; s < o.repeat; ++s) {
    Kokkos::Timer timer;
    solver->advance(r.steps);
    compat::fence("karman::perf::sample");
    seconds.push_back(timer.seconds());
  }
  const double mass_after = solver->local_mass();
  std::sort(seconds.begin(), seconds.end());
  r.seconds = seconds[seconds.size() / 2];
  const double updates = double(r.voxels) * r.steps;
  r.mlups = updates / r.seconds / 1e6;
  r.mlups_max = updates / seconds.front() / 1e6;
  r.bytes_per_update = solver->bytes_per_update();
  r.bandwidth_gbps = r.mlups * double(r.bytes_per_update) / 1e3;
  r.copy_bandwidth_gbps = copy.best_gbps;
  r.copy_kernel = copy.best_kernel;
  r.deep_copy_gbps = copy.deep_copy_gbps;
  r.percent_of_copy = 100.0 * r.bandwidth_gbps / copy.best_gbps;
  r.population_bytes = solver->population_bytes();
  r.bytes_per_cell = double(r.population_bytes) / double(solver->owned_box().local_voxels);
  r.mass_drift = std::fabs(mass_after - mass_before) / mass_before;
  r.backend = info.default_backend;
  r.device = info.device_name;
  r.concurrency = info.concurrency;
  r.kokkos_version = info.kokkos_version;
  r.commit = KARMAN_GIT_COMMIT;
  return r;
}

}  // namespace

bool on_gpu() { return BackendTraits<Kokkos::DefaultExecutionSpace>::is_gpu; }

int default_edge(const std::string& lattice) {
  if (two_d(lattice)) return on_gpu() ? 4096 : 2048;
  return on_gpu() ? 256 : 128;
}

int default_steps() { return on_gpu() ? 100 : 10; }

std::int64_t default_markers() { return on_gpu() ? 1000000 : 10000; }

SphereArray sphere_array(int n, int dimension, std::int64_t markers) {
  const double pi = 3.14159265358979323846;
  // Markers about one voxel apart: one per voxel^2 of surface (voxel of arc in 2D).
  auto surface = [&](double r) { return dimension == 3 ? 4.0 * pi * r * r : 2.0 * pi * r; };
  const std::string what = "karman bench --case ib: --markers " + std::to_string(markers) +
                           " on an n = " + std::to_string(n) + (dimension == 3 ? " cube" : " square");
  // Radius 2 at least: the 3-point kernel's support stays outside the sphere's opposite side.
  const double fewest = surface(2.0);
  if (double(markers) < fewest) throw Error(what + ": too few, at least " + std::to_string(int(std::ceil(fewest))));
  double most = 0;
  for (int k = 1; 0.5 * double(n) / k - 2.0 >= 2.0; ++k) {
    const double spheres = std::pow(double(k), dimension), largest = 0.5 * double(n) / k - 2.0;
    most = std::max(most, spheres * surface(largest));
    if (spheres * surface(largest) < double(markers)) continue;
    SphereArray a;
    a.per_axis = k;
    a.markers_per_sphere = int(std::llround(double(markers) / spheres));
    a.radius = dimension == 3 ? std::sqrt(a.markers_per_sphere / (4.0 * pi)) : a.markers_per_sphere / (2.0 * pi);
    if (a.radius < 2.0) break;
    return a;
  }
  throw Error(what + ": out of range [" + std::to_string(int(std::ceil(fewest))) + ", " +
              std::to_string(std::int64_t(most)) + "] (spheres of radius >= 2, 2 voxels clear of their cells' sides)");
}

std::size_t population_bytes(const std::string& lattice, const std::string& precision, const std::string& pattern,
                             int n) {
  const std::size_t local_voxels =
      two_d(lattice) ? std::size_t(n) * (n + 2) : std::size_t(n) * std::size_t(n) * (n + 2);
  return (pattern == "ab" ? 2 : 1) * local_voxels * std::size_t(lbm::lattice_populations(lattice)) *
         std::size_t(lbm::precision_bytes(precision));
}

std::size_t copy_buffer_bytes(const BenchOptions& o) {
  if (o.copy_bytes > 0) return o.copy_bytes;
  std::size_t largest = on_gpu() ? std::size_t(1) << 30 : std::size_t(256) << 20;
  for (const auto& lattice : o.lattices)
    for (const auto& precision : o.precisions)
      for (const auto& pattern : o.patterns)
        largest = std::max(largest, population_bytes(lattice, precision, pattern, resolved_edge(o, lattice)) / 2);
  return largest;
}

void validate(const BenchOptions& o) {
  require_names("lattice", o.lattices, lbm::Lattices::names());
  require_names("precision", o.precisions, lbm::Precisions::names());
  require_names("layout", o.layouts, lbm::Layouts::names());
  require_names("pattern", o.patterns, lbm::Patterns::names());
  require_names("collision", o.collisions, lbm::Collisions::names());
  for (const auto& collision : o.collisions) {
    bool anywhere = false;
    for (const auto& lattice : o.lattices) anywhere = anywhere || lbm::collision_defined_for(collision, lattice);
    if (!anywhere) {
      std::string lattices;
      for (const auto& l : o.lattices) lattices += (lattices.empty() ? "" : ", ") + l;
      throw Error("karman bench: collision '" + collision + "' is defined for none of the lattices (" + lattices +
                  "); " + lbm::undefined_collision_message(collision, o.lattices.front()));
    }
  }
  require_names("case", o.cases, {"box", "cavity", "channel", "ib"});
  if (std::find(o.cases.begin(), o.cases.end(), "ib") != o.cases.end()) {
    bool any = false;
    for (const auto& pattern : o.patterns)
      for (const auto& collision : o.collisions) any = any || runs_immersed_boundaries(pattern, collision);
    if (!any)
      throw Error("karman bench: --case ib runs with --pattern ab and --collision bgk or trt; neither is in the sweep");
    if (o.markers < 0) throw Error("karman bench: --markers " + std::to_string(o.markers) + " out of range [1, inf)");
    if (o.marker_blocks.empty()) throw Error("karman bench: no marker block given; accepted: 0 to 4096");
    for (const int block : o.marker_blocks) require_in_range("karman bench", "marker block", block, 0, 4096);
    for (const auto& lattice : o.lattices)
      sphere_array(resolved_edge(o, lattice), two_d(lattice) ? 2 : 3, resolved_markers(o));
  }
  require_names("schedule", o.schedules, {"split", "fused"});
  if (o.tiles.empty()) throw Error("karman bench: no schedule tile given; accepted: 0 (default) or 1 to 4096");
  for (const int tile : o.tiles) require_in_range("karman bench", "tile", tile, 0, 4096);
  for (const auto& lattice : o.lattices) {
    if (two_d(lattice)) {
      require_in_range("karman bench", "n (2D edge)", resolved_edge(o, lattice), 4, 65536);
    } else {
      require_in_range("karman bench", "n (3D edge)", resolved_edge(o, lattice), 4, 2048);
    }
  }
  const int steps = resolved_steps(o);
  require_in_range("karman bench", "steps", steps, 2, 1000000);
  if (steps % 2 != 0) {
    throw Error("karman bench: steps = " + std::to_string(steps) +
                " must be even (the AA pattern alternates two step kinds)");
  }
  require_in_range("karman bench", "warmup", resolved_warmup(o), 0, 1000000);
  require_in_range("karman bench", "repeat", o.repeat, 1, 1000);
  // A sweep of no compiled variant is refused here, before the copy reference is measured.
  uncompiled_variants(o);
}

std::vector<std::string> uncompiled_variants(const BenchOptions& o) {
  std::vector<std::string> missing;
  bool any = false;
  for (const auto& lattice : o.lattices)
    for (const auto& precision : o.precisions)
      for (const auto& layout : o.layouts) {
        const bool held = lbm::is_compiled(lattice, precision, layout);
        any = any || held;
        if (!held) missing.push_back(lattice + "/" + precision + "/" + layout);
      }
  if (!any) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    throw Error("karman bench: no variant of the sweep is compiled into this build of Karman::lbm (" + names +
                "); reconfigure with -DKARMAN_VARIANTS naming them, or -DKARMAN_FP16_LAYOUTS for fp16s/fp16c");
  }
  return missing;
}

void report_passed_over(const std::vector<std::string>& names) {
  for (const auto& name : names)
    std::cerr << "karman bench: " << name << " is not compiled into this build, passed over\n";
}

std::vector<BenchRecord> run_bench(const BenchOptions& options,
                                   const std::function<void(const BenchRecord&)>& on_record) {
  validate(options);
  return run_bench(options, measure_copy_bandwidth(copy_buffer_bytes(options), options.repeat), on_record);
}

std::vector<BenchRecord> run_bench(const BenchOptions& options, const CopyBandwidth& copy,
                                   const std::function<void(const BenchRecord&)>& on_record) {
  validate(options);
  report_passed_over(uncompiled_variants(options));
  const BackendInfo info = backend_info();
  std::vector<BenchRecord> records;
  for (const auto& case_name : options.cases)
    for (const auto& schedule : options.schedules)
      for (const int tile : options.tiles)
        for (const auto& lattice : options.lattices)
          for (const auto& precision : options.precisions)
            for (const auto& layout : options.layouts)
              for (const auto& pattern : options.patterns)
                for (const auto& collision : options.collisions)
                  for (const int marker_block : options.marker_blocks) {
                    // A periodic box has no boundary voxels: every schedule runs it alike.
                    const bool periodic_box = case_name == "box" || case_name == "ib";
                    if (periodic_box && (&schedule != &options.schedules.front() || tile != options.tiles.front()))
                      continue;
                    if (case_name == "ib" ? !runs_immersed_boundaries(pattern, collision)
                                          : marker_block != options.marker_blocks.front())
                      continue;
                    // A sweep over lattices skips the pairs a collision is not defined for (CM on
                    // D3Q19, MRT on D3Q27); validate() refuses a collision no lattice of it accepts.
                    if (!lbm::collision_defined_for(collision, lattice)) continue;
                    if (!lbm::is_compiled(lattice, precision, layout)) continue;
                    lbm::Variant v;
                    v.lattice = lattice;
                    v.precision = precision;
                    v.layout = layout;
                    v.pattern = pattern;
                    v.collision = collision;
                    records.push_back(run_variant(case_name, schedule, tile, marker_block, v, options, copy, info));
                    if (on_record) on_record(records.back());
                  }
  return records;
}

}  // namespace karman::perf
