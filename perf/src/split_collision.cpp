#include <karman/perf/split_collision.hpp>

#include <karman/perf/bench.hpp>

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/version.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/d3q27.hpp>
#include <karman/lbm/equilibrium.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

namespace karman::perf {
namespace {

using L = lbm::D3Q27;
constexpr int Q = L::Q;
/// Populations of all voxels, one plane per population (SoA): value (i, voxel).
using Populations = Kokkos::View<float**, Kokkos::LayoutRight>;

/// The n^3 periodic box; a voxel is x + n (y + n z).
struct PeriodicBox {
  int n = 0;

  KOKKOS_INLINE_FUNCTION int wrap_minus(int x, int c) const {
    if (c > 0) return x == 0 ? n - 1 : x - 1;
    if (c < 0) return x == n - 1 ? 0 : x + 1;
    return x;
  }
  /// The populations of `voxel` after streaming: each pulled from voxel - c_i.
  KOKKOS_INLINE_FUNCTION void pull(const Populations& from, int voxel, float (&f)[Q]) const {
    const int x = voxel % n, y = voxel / n % n, z = voxel / (n * n);
    lbm::static_for<Q>([&](auto i) {
      constexpr int i_ = decltype(i)::value;
      const int source = wrap_minus(x, L::c(i_, 0)) + n * (wrap_minus(y, L::c(i_, 1)) + n * wrap_minus(z, L::c(i_, 2)));
      f[i_] = from(i_, source);
    });
  }
  /// pull(), then the density and velocity of the pulled populations (no force).
  KOKKOS_INLINE_FUNCTION void pull_moments(const Populations& from, int voxel, float (&f)[Q], float& rho,
                                           float (&u)[3]) const {
    pull(from, voxel, f);
    const float no_force[3] = {0, 0, 0};
    lbm::moments<L, float, false>(f, no_force, rho, u);
  }
};

/// One launch: stream, moments, the whole collision, store.
struct FusedUpdate {
  Populations from, to;
  PeriodicBox box;
  lbm::CollisionRates<float> rates;

  KOKKOS_INLINE_FUNCTION void operator()(int voxel) const {
    float f[Q], rho, u[3];
    box.pull_moments(from, voxel, f, rho, u);
    const float no_force[3] = {0, 0, 0};
    lbm::CM::collide<L, float, false>(f, rho, u, no_force, rates);
    lbm::static_for<Q>([&](auto i) { to(decltype(i)::value, voxel) = f[decltype(i)::value]; });
  }
};

/// Split, first launch: stream, moments, the relaxed central moments and u to `half`.
struct RelaxMoments {
  Populations from, half;
  PeriodicBox box;
  lbm::CollisionRates<float> rates;

  KOKKOS_INLINE_FUNCTION void operator()(int voxel) const {
    float f[Q], rho, u[3];
    box.pull_moments(from, voxel, f, rho, u);
    lbm::CM::relax_central_moments<L>(f, rho, u, rates);
    lbm::static_for<Q>([&](auto k) { half(decltype(k)::value, voxel) = f[decltype(k)::value]; });
    lbm::static_for<3>([&](auto d) { half(Q + decltype(d)::value, voxel) = u[decltype(d)::value]; });
  }
};

/// Split, second launch: the central moments of `half` back to populations.
struct MomentsToPopulations {
  Populations half, to;

  KOKKOS_INLINE_FUNCTION void operator()(int voxel) const {
    float f[Q];
    lbm::static_for<Q>([&](auto k) { f[decltype(k)::value] = half(decltype(k)::value, voxel); });
    const float u[3] = {half(Q, voxel), half(Q + 1, voxel), half(Q + 2, voxel)};
    lbm::CentralMoments<L>::backward(f, u);
    lbm::static_for<Q>([&](auto i) { to(decltype(i)::value, voxel) = f[decltype(i)::value]; });
  }
};

/// Mass of all populations.
struct Mass {
  Populations f;

  KOKKOS_INLINE_FUNCTION void operator()(int voxel, double& sum) const {
    for (int i = 0; i < Q; ++i) sum += double(f(i, voxel));
  }
};

int resolved_n(const SplitCollisionOptions& o) { return o.n > 0 ? o.n : (on_gpu() ? 256 : 96); }
int resolved_steps(const SplitCollisionOptions& o) { return o.steps > 0 ? o.steps : default_steps(); }
int resolved_warmup(const SplitCollisionOptions& o) {
  return o.warmup >= 0 ? o.warmup : std::max(1, resolved_steps(o) / 5);
}

/// The two schedules on their own lattices (AB: read one, write the other, swap).
class Schedules {
 public:
  Schedules(int n, const lbm::CollisionRates<float>& rates)
      : m_n(n),
        m_voxels(n * n * n),
        m_box{n},
        m_rates(rates),
        m_a("karman::perf::split_collision::a", Q, m_voxels),
        m_b("karman::perf::split_collision::b", Q, m_voxels),
        m_half("karman::perf::split_collision::half", Q + 3, m_voxels) {}

  /// The bench's initial state: the equilibrium of rho = 1 and a shear wave in every velocity
  /// component (Mach 0.03), so that every moment the collision relaxes is non-zero.
  void initialise() {
    const auto host = Kokkos::create_mirror_view(m_a);
    const double k = 2 * M_PI / m_n, a = 0.03 / std::sqrt(3.0);
    for (int z = 0; z < m_n; ++z)
      for (int y = 0; y < m_n; ++y)
        for (int x = 0; x < m_n; ++x) {
          const float u[3] = {float(a * std::sin(k * y)), float(a * std::sin(k * z)), float(a * std::sin(k * x))};
          for (int i = 0; i < Q; ++i) host(i, x + m_n * (y + m_n * z)) = lbm::equilibrium<L>(i, 1.0f, u);
        }
    Kokkos::deep_copy(m_a, host);
  }
  void fused(int steps) {
    for (int s = 0; s < steps; ++s) {
      Kokkos::parallel_for("karman::perf::split_collision::fused", policy(), FusedUpdate{m_a, m_b, m_box, m_rates});
      std::swap(m_a, m_b);
    }
  }
  void split(int steps) {
    for (int s = 0; s < steps; ++s) {
      Kokkos::parallel_for("karman::perf::split_collision::relax", policy(), RelaxMoments{m_a, m_half, m_box, m_rates});
      Kokkos::parallel_for("karman::perf::split_collision::back", policy(), MomentsToPopulations{m_half, m_b});
      std::swap(m_a, m_b);
    }
  }
  /// The current populations.
  const Populations& state() const { return m_a; }
  double mass() const {
    double sum = 0;
    Kokkos::parallel_reduce("karman::perf::split_collision::mass", policy(), Mass{m_a}, sum);
    return sum;
  }
  int voxels() const { return m_voxels; }

 private:
  Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<int>> policy() const { return {0, m_voxels}; }

  int m_n, m_voxels;
  PeriodicBox m_box;
  lbm::CollisionRates<float> m_rates;
  Populations m_a, m_b, m_half;
};

SplitCollisionTiming time_schedule(Schedules& s, bool split, int warmup, int steps, int repeat) {
  auto run = [&](int k) { split ? s.split(k) : s.fused(k); };
  run(warmup);
  compat::fence("karman::perf::split_collision::warmup");
  std::vector<double> seconds;
  for (int r = 0; r < repeat; ++r) {
    Kokkos::Timer timer;
    run(steps);
    compat::fence("karman::perf::split_collision::sample");
    seconds.push_back(timer.seconds());
  }
  std::sort(seconds.begin(), seconds.end());
  SplitCollisionTiming t;
  t.seconds = seconds[seconds.size() / 2];
  t.mlups = double(s.voxels()) * steps / t.seconds / 1e6;
  // Fused: 27 populations read and 27 written. Split: that, plus 30 values written by the first
  // launch and read back by the second.
  t.bytes_per_update = int(sizeof(float)) * (split ? 2 * Q + 2 * (Q + 3) : 2 * Q);
  t.bandwidth_gbps = t.mlups * t.bytes_per_update / 1e3;
  return t;
}

}  // namespace

void validate(const SplitCollisionOptions& o) {
  if (o.n != 0) require_in_range("karman bench --split-collision", "--n", o.n, 4, 512);
  if (o.steps != 0) require_in_range("karman bench --split-collision", "--steps", o.steps, 1, 1000000);
  if (o.warmup >= 0) require_in_range("karman bench --split-collision", "--warmup", o.warmup, 0, 1000000);
  require_in_range("karman bench --split-collision", "--repeat", o.repeat, 1, 1000);
}

SplitCollisionResult run_split_collision(const SplitCollisionOptions& o) {
  validate(o);
  SplitCollisionResult r;
  r.n = resolved_n(o);
  r.steps = resolved_steps(o);
  r.warmup = resolved_warmup(o);
  r.repeat = o.repeat;
  // The bench's tau = 0.6; the bulk and higher-order rates at their default, 1.
  lbm::RelaxationParams params;
  params.omega = 1 / 0.6;
  const auto rates = lbm::collision_rates<lbm::CM, float>(params);

  // The check: both schedules from the same state, a few steps, every population compared.
  r.check_steps = 4;
  Schedules fused(r.n, rates), split(r.n, rates);
  fused.initialise();
  split.initialise();
  const double mass_before = fused.mass();
  fused.fused(r.check_steps);
  split.split(r.check_steps);
  r.mass_drift = std::fabs(fused.mass() - mass_before) / mass_before;
  {
    const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fused.state());
    const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), split.state());
    r.identical = true;
    for (int i = 0; i < Q; ++i)
      for (int v = 0; v < fused.voxels(); ++v) {
        r.max_abs_difference = std::max(r.max_abs_difference, std::fabs(double(a(i, v)) - double(b(i, v))));
        r.identical = r.identical && a(i, v) == b(i, v);
      }
  }

  const std::size_t lattice_bytes = std::size_t(Q) * std::size_t(fused.voxels()) * sizeof(float);
  const std::size_t floor_bytes = on_gpu() ? std::size_t(1) << 30 : std::size_t(256) << 20;
  r.copy = measure_copy_bandwidth(o.copy_bytes > 0 ? o.copy_bytes : std::max(lattice_bytes, floor_bytes), r.repeat);

  r.fused = time_schedule(fused, false, r.warmup, r.steps, r.repeat);
  r.split = time_schedule(split, true, r.warmup, r.steps, r.repeat);
  for (SplitCollisionTiming* t : {&r.fused, &r.split}) t->percent_of_copy = 100 * t->bandwidth_gbps / r.copy.best_gbps;
  r.split_over_fused = r.split.mlups / r.fused.mlups;

  const BackendInfo info = backend_info();
  r.backend = info.default_backend;
  r.device = info.device_name;
  r.kokkos_version = info.kokkos_version;
  r.commit = KARMAN_GIT_COMMIT;
  return r;
}

std::string to_json(const SplitCollisionResult& r) {
  const auto timing = [](const SplitCollisionTiming& t) {
    return nlohmann::ordered_json{{"seconds", t.seconds},
                                  {"mlups", t.mlups},
                                  {"bytes_per_update", t.bytes_per_update},
                                  {"bandwidth_gbps", t.bandwidth_gbps},
                                  {"percent_of_copy", t.percent_of_copy}};
  };
  nlohmann::ordered_json j;
  j["lattice"] = "d3q27";
  j["precision"] = "float";
  j["layout"] = "soa";
  j["collision"] = "cm";
  j["n"] = r.n;
  j["steps"] = r.steps;
  j["warmup"] = r.warmup;
  j["repeat"] = r.repeat;
  j["fused"] = timing(r.fused);
  j["split"] = timing(r.split);
  j["split_over_fused"] = r.split_over_fused;
  j["check_steps"] = r.check_steps;
  j["identical"] = r.identical;
  j["max_abs_difference"] = r.max_abs_difference;
  j["mass_drift"] = r.mass_drift;
  j["copy_bandwidth_gbps"] = r.copy.best_gbps;
  j["copy_kernel"] = r.copy.best_kernel;
  j["backend"] = r.backend;
  j["device"] = r.device;
  j["kokkos_version"] = r.kokkos_version;
  j["commit"] = r.commit;
  return j.dump(2);
}

void write_json(const std::string& path, const SplitCollisionResult& result) {
  std::ofstream out(path);
  if (!out) throw Error("karman bench: cannot write --json file '" + path + "'");
  out << to_json(result) << "\n";
  if (!out) throw Error("karman bench: writing --json file '" + path + "' failed");
}

std::string split_collision_table(const SplitCollisionResult& r) {
  char text[1024];
  std::snprintf(text, sizeof(text),
                "D3Q27 float SoA, central-moment collision, %d^3 periodic box, %d steps x %d samples (median)\n"
                "copy reference %.1f GB/s (%s)\n"
                "schedule   MLUPS      B/update  GB/s      %%copy\n"
                "fused      %-10.1f %-9d %-9.1f %.1f\n"
                "split      %-10.1f %-9d %-9.1f %.1f\n"
                "split / fused: %.3f; after %d steps the two differ by at most %.3g (%s)\n",
                r.n, r.steps, r.repeat, r.copy.best_gbps, r.copy.best_kernel.c_str(), r.fused.mlups,
                r.fused.bytes_per_update, r.fused.bandwidth_gbps, r.fused.percent_of_copy, r.split.mlups,
                r.split.bytes_per_update, r.split.bandwidth_gbps, r.split.percent_of_copy, r.split_over_fused,
                r.check_steps, r.max_abs_difference, r.identical ? "bitwise equal" : "not bitwise equal");
  return text;
}

}  // namespace karman::perf
