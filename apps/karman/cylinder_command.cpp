// `karman cylinder`: the Schäfer-Turek (1996) cylinder benchmarks 2D-1, 2D-2, 3D-1Z and 3D-2Z.
// The run records the force on the cylinder (momentum exchange, or the immersed boundary's
// reaction) every few steps, and the outputs turn it into the benchmark's coefficients: drag
// and lift, the pressure difference across the cylinder, the recirculation length (2D-1), the
// Strouhal number and the force maxima (2D-2, 3D-2Z).
#include "case_commands.hpp"
#include "case_runner.hpp"

#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/csv.hpp>
#include <karman/lbm/cases/cylinder.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

namespace karman::app {
namespace {

using lbm::cases::CylinderCase;
using lbm::cases::CylinderLattice;
using lbm::cases::CylinderParams;

/// The force history: one row per sample.
struct ForceHistory {
  std::vector<double> step, time, drag, lift;
  /// The columns by name, for the case's checkpointed history (CaseDefinition::history).
  std::map<std::string, std::vector<double>*> columns() {
    return {{"step", &step}, {"time", &time}, {"drag", &drag}, {"lift", &lift}};
  }
};

/// The option name of the cylinder's surface treatment.
std::string wall_name(const CylinderParams& p) {
  return p.immersed.enabled ? "ib" : lbm::wall_interpolation_name(p.wall);
}

/// Options of the command beyond the solver's.
struct CylinderOptions {
  std::string benchmark = "2d-1";
  std::string wall = "bouzidi-linear";
  std::string ib_kernel = lbm::delta_kernel_name(lbm::cases::ImmersedCylinder{}.kernel);
  double velocity = 0;     ///< lattice U_max; 0: the case's default
  double end_time = 0;     ///< benchmark time to run (2D-2); 0: the case's default
  double sample_time = 0;  ///< benchmark time between force samples; 0: the case's default
  int periods = 12;        ///< --case oscillating: periods to run (the second half analysed)
};

/// Default lattice U_max: the steady cases keep the Mach number low (compressibility errors in
/// c_D ~ Ma^2); the periodic ones need a larger one so that tau stays clear of 1/2 at Re 100.
double default_velocity(CylinderCase c) { return lbm::cases::cylinder_benchmark(c).steady ? 0.05 : 0.1; }

/// Benchmark time 2D-2 and 3D-2Z run by default: shedding sets in from the geometry's asymmetry
/// within a few time units, and the last quarter of the run (about 12 periods) is analysed.
constexpr double default_periodic_end_time = 16.0;

/// Benchmark time 2D-1 runs by default. The wake settles within about 15 time units; what is
/// left are acoustic waves between the regularized inlet and outlet, which reflect both and
/// which viscosity damps only over ~L^2 / nu. Their period, 2 L / c_s in lattice units (1.3 time
/// units at U_max = 0.05), is short against the last quarter of the run, over which the forces
/// are averaged.
constexpr double default_steady_end_time = 20.0;

/// Mean of v[from, to).
double mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t k = from; k < to; ++k) sum += v[k];
  return to > from ? sum / double(to - from) : NAN;
}

/// The voxel lines along x through the centre line y = cy (in 3D at the channel's middle
/// z = H / 2) and their bilinear weights: two rows straddling cy, in 3D times the two layers
/// straddling the middle; lines of weight zero are left out.
struct CentreLines {
  struct Line {
    int j, k;
    double weight;
  };
  std::vector<Line> lines;

  explicit CentreLines(const CylinderLattice& l) {
    const int j0 = int(std::floor(l.centre[1])), k0 = int(std::floor(l.middle_z));
    const double wy = l.centre[1] - j0, wz = l.middle_z - k0;
    for (int b = 0; b < 2; ++b) {
      for (int a = 0; a < 2; ++a) {
        const double w = (a ? wy : 1.0 - wy) * (b ? wz : 1.0 - wz);
        if (w > 0) lines.push_back({j0 + a, k0 + b, w});
      }
    }
  }
  /// The weighted sum of f(j, k) over the lines.
  template <class F>
  double sum(F&& f) const {
    double total = 0;
    for (const Line& line : lines) total += line.weight * f(line.j, line.k);
    return total;
  }
};

/// Voxels next to the surface that its treatment disturbs and the readings below leave out: none
/// for walls of solid voxels; immersed boundaries force the voxels within half the delta
/// kernel's support of their markers, which sit `retraction` inside the surface.
double surface_gap(const CylinderParams& p) {
  if (!p.immersed.enabled) return 0.0;
  const int support = lbm::dispatch_delta_kernel(p.immersed.kernel, [](auto k) { return decltype(k)::support; });
  return 0.5 * support - p.immersed.retraction;
}

/// Quadratic extrapolation to voxel coordinate x of field `f` along the line (j, k), from the
/// first three fluid voxels met walking from `gap` voxels past x in direction `dir` (density 0
/// marks solid voxels).
double extrapolate_line(const GlobalFields& g, const std::vector<double>& f, int j, int k, double x, int dir,
                        double gap) {
  int i = dir > 0 ? int(std::ceil(x + gap)) : int(std::floor(x - gap));
  while (i > 0 && i < g.extents.nx - 1 && g.rho[g.at(i, j, k)] == 0.0) i += dir;
  const double x0 = i, x1 = i + dir, x2 = i + 2 * dir;
  const double f0 = f[g.at(i, j, k)], f1 = f[g.at(i + dir, j, k)], f2 = f[g.at(i + 2 * dir, j, k)];
  return f0 * (x - x1) * (x - x2) / ((x0 - x1) * (x0 - x2)) + f1 * (x - x0) * (x - x2) / ((x1 - x0) * (x1 - x2)) +
         f2 * (x - x0) * (x - x1) / ((x2 - x0) * (x2 - x1));
}

/// Density on the centre line at voxel coordinate x, extrapolated from the fluid side `dir`
/// beyond `gap` voxels.
double surface_density(const GlobalFields& g, const CylinderLattice& l, double x, int dir, double gap) {
  return CentreLines(l).sum([&](int j, int k) { return extrapolate_line(g, g.rho, j, k, x, dir, gap); });
}

/// Recirculation length in voxels: from the back of the cylinder to where u_x on the centre line
/// turns positive again (linear interpolation between voxels), looked for from `gap` voxels
/// behind the surface; empty when there is no wake bubble.
std::optional<double> recirculation_voxels(const GlobalFields& g, const CylinderLattice& l, double gap) {
  const CentreLines lines(l);
  const double back = l.centre[0] + l.radius;
  auto ux = [&](int x) { return lines.sum([&](int j, int k) { return g.ux[g.at(x, j, k)]; }); };
  auto fluid = [&](int x) {
    for (const auto& line : lines.lines) {
      if (!(g.rho[g.at(x, line.j, line.k)] > 0.0)) return false;
    }
    return true;
  };
  int x = int(std::ceil(back + gap));
  while (x < g.extents.nx - 1 && !fluid(x)) ++x;
  if (ux(x) > 0) return std::nullopt;
  for (; x + 1 < g.extents.nx; ++x) {
    if (ux(x + 1) > 0) return x + ux(x) / (ux(x) - ux(x + 1)) - back;
  }
  return std::nullopt;
}

/// Local maxima of y(t) refined by the parabola through each maximum and its neighbours.
std::vector<std::pair<double, double>> maxima(const std::vector<double>& t, const std::vector<double>& y,
                                              std::size_t from) {
  std::vector<std::pair<double, double>> out;
  for (std::size_t k = std::max<std::size_t>(from, 1); k + 1 < y.size(); ++k) {
    if (!(y[k] > y[k - 1] && y[k] >= y[k + 1])) continue;
    const double a = y[k - 1], b = y[k], c = y[k + 1], h = t[k + 1] - t[k];
    const double den = a - 2 * b + c;
    const double s = den != 0 ? 0.5 * (a - c) / den : 0.0;
    out.push_back({t[k] + s * h, b - 0.25 * (a - c) * s});
  }
  return out;
}

/// Runs `arguments` (the program first, found on the PATH) without a shell, its output and errors
/// discarded, and waits for it: no text of the user's is ever parsed as a command. Returns its
/// exit status, or -errno when it could not start (-ENOENT: not on the PATH).
int run_quietly(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int error_number = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error_number != 0) return -error_number;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -errno;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// A gnuplot script for c_D and c_L against time. The file names come as arguments (gnuplot -c
/// forces.gp CSV PNG), never as script text, so a quote in a path can neither break nor extend
/// the script; without arguments it reads forces.csv and draws forces.png in the current
/// directory. The y ranges leave out the first tenth of the `samples`, the start-up transient,
/// which would flatten the rest.
std::string forces_script(const std::string& title, std::size_t samples) {
  std::string gp =
      "csv = (ARGC >= 1) ? ARG1 : 'forces.csv'\npng = (ARGC >= 2) ? ARG2 : 'forces.png'\n"
      "set terminal pngcairo size 1000,700 noenhanced\nset output png\n"
      "set datafile separator ','\nset multiplot layout 2,1 title '" +
      title + "'\nset xlabel 'time'\nset grid\n";
  const char* names[2] = {"c_D", "c_L"};
  for (int column = 3; column <= 4; ++column) {
    const std::string c = std::to_string(column);
    gp += "set ylabel '" + std::string(names[column - 3]) + "'\nset autoscale y\n";
    if (samples >= 20) {
      gp += "stats csv skip 1 every ::" + std::to_string(samples / 10) + " using " + c + " nooutput name 'S'\n" +
            "set yrange [S_min - 0.05 * (S_max - S_min) - 1e-12 : S_max + 0.05 * (S_max - S_min) + 1e-12]\n";
    }
    gp += "plot csv skip 1 using 2:" + c + " with lines notitle\n";
  }
  return gp + "unset multiplot\n";
}

/// Writes forces.gp and runs gnuplot on it; a missing gnuplot is a note, not a failure
/// (forces.csv holds the same history). gnuplot draws into a file Karman created exclusively
/// under an unpredictable name, renamed to forces.png once complete: it never opens a name
/// someone could have planted a link at.
void plot_forces(const std::filesystem::path& dir, const std::string& title, std::size_t samples) {
  const auto script = dir / "forces.gp";
  io::write_file_atomically(script, forces_script(title, samples));
  const std::filesystem::path png = io::create_file_beside(dir / "forces.png");
  const int status =
      run_quietly({"gnuplot", "-c", std::filesystem::absolute(script).string(),
                   std::filesystem::absolute(dir / "forces.csv").string(), std::filesystem::absolute(png).string()});
  if (status == 0) {
    io::replace_file(png, dir / "forces.png");
    return;
  }
  std::filesystem::remove(png);
  if (status == -ENOENT) {
    std::printf(
        "  note: gnuplot not found, forces.png not drawn (install gnuplot-nox, e.g. by "
        "cmake/bootstrap/install-debian-deps.sh; then run gnuplot %s in %s)\n",
        script.filename().c_str(), dir.c_str());
  } else {
    std::printf("  note: gnuplot failed on %s; forces.png not drawn (forces.csv holds the history)\n", script.c_str());
  }
}

/// Cylinder outputs: the force history (CSV and plot) and the benchmark's figures.
void finish_cylinder(const CylinderParams& p, const ForceHistory& h, const GlobalFields& g,
                     const std::filesystem::path& dir, nlohmann::json& summary, std::size_t markers) {
  const CylinderLattice l = lbm::cases::cylinder_lattice(p);
  const auto bench = lbm::cases::cylinder_benchmark(p.benchmark);
  const char* name = lbm::cases::cylinder_case_name(p.benchmark);
  io::write_csv(dir / "forces.csv", {"step", "time", "c_D", "c_L"}, {h.step, h.time, h.drag, h.lift});
  // p = rho cs^2, scaled to the benchmark's units by (rho U_mean^2)_benchmark / (rho U_mean^2)_lattice.
  const double pressure_scale = bench.mean_velocity * bench.mean_velocity / (l.mean_velocity * l.mean_velocity);
  const double gap = surface_gap(p);
  const double front = surface_density(g, l, l.centre[0] - l.radius, -1, gap);
  const double back = surface_density(g, l, l.centre[0] + l.radius, +1, gap);
  const double dp = (front - back) / 3.0 * pressure_scale;
  nlohmann::json& c = summary["cylinder"];
  c = {{"case", name},
       {"wall", wall_name(p)},
       {"dimension", l.dimension},
       {"diameter_voxels", p.diameter},
       {"span_voxels", l.span},
       {"dx", l.dx},
       {"dt", l.dt},
       {"mean_velocity_lattice", l.mean_velocity},
       {"reynolds", bench.reynolds},
       {"force_samples", h.time.size()}};
  if (p.immersed.enabled) {
    c["markers"] = markers;
    c["ib_kernel"] = lbm::delta_kernel_name(p.immersed.kernel);
    c["ib_iterations"] = p.immersed.forcing_iterations;
    c["ib_retraction"] = p.immersed.retraction;
    c["ib_block"] = p.immersed.marker_block;
  }
  summary["c_D"] = h.drag.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.drag.back());
  summary["c_L"] = h.lift.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.lift.back());
  summary["dp"] = dp;
  const std::size_t n = h.time.size(), last_quarter = n - n / 4, last_eighth = n - n / 8;
  std::printf("  cylinder %s, D = %d, %s: ", name, p.diameter, wall_name(p).c_str());
  if (bench.steady) {
    // The recirculation length is a 2D-1 figure; Schäfer & Turek define none for 3D-1Z.
    std::optional<double> la;
    if (l.dimension == 2) {
      la = recirculation_voxels(g, l, gap);
      summary["L_a"] = la ? nlohmann::json(*la * l.dx) : nlohmann::json(nullptr);
    }
    if (n >= 8) {
      // Steady forces: means over the last quarter, through the acoustic waves; their drift
      // between its halves says whether the wake had settled.
      const double cd = mean(h.drag, last_quarter, n), cl = mean(h.lift, last_quarter, n);
      const double drift = std::fabs(mean(h.drag, last_quarter, last_eighth) - mean(h.drag, last_eighth, n)) / cd;
      summary["c_D"] = cd;
      summary["c_L"] = cl;
      c["averaged_from_time"] = h.time[last_quarter];
      c["c_D_drift"] = drift;
    }
    std::printf("c_D %.5f, c_L %.5f, dp %.5f", summary["c_D"].is_number() ? summary["c_D"].get<double>() : NAN,
                summary["c_L"].is_number() ? summary["c_L"].get<double>() : NAN, dp);
    if (l.dimension == 2) std::printf(", L_a %s", la ? std::to_string(*la * l.dx).c_str() : "none");
    std::printf("\n");
    const double drift = c.value("c_D_drift", 0.0);
    if (drift > 1e-3)
      std::printf("  note: c_D drifts by %.2g between the last eighths: not steady yet (--time)\n", drift);
  } else {
    // The last quarter of the history: the periodic regime, several shedding periods.
    const auto lift_peaks = maxima(h.time, h.lift, last_quarter);
    const auto drag_peaks = maxima(h.time, h.drag, last_quarter);
    // A periodic regime keeps its amplitude; an oscillation that dies out (a wake settling to a
    // steady state) is not shedding, whatever the spacing of its lift's maxima says. The drag,
    // which swings at twice the shedding frequency, shows it best (the lift of a nearly
    // symmetric wake is a small difference).
    const auto swing = [&](std::size_t from, std::size_t to) {
      const auto [lo, hi] =
          std::minmax_element(h.drag.begin() + std::ptrdiff_t(from), h.drag.begin() + std::ptrdiff_t(to));
      return *hi - *lo;
    };
    const double amplitude_ratio =
        n >= 8 ? swing(last_eighth, n) / std::max(swing(last_quarter, last_eighth), 1e-300) : 0.0;
    c["c_D_swing_ratio"] = amplitude_ratio;
    if (n >= 8 && amplitude_ratio < 0.8) {
      summary["c_D_max"] = summary["c_L_max"] = summary["St"] = nullptr;
      summary["c_D"] = mean(h.drag, last_eighth, n);
      summary["c_L"] = mean(h.lift, last_eighth, n);
      std::printf(
          "no periodic shedding: the drag's swing fell to %.2f of itself between the last eighths of the run "
          "(the wake settles); c_D %.4f, c_L %.5f at the end\n",
          amplitude_ratio, summary["c_D"].get<double>(), summary["c_L"].get<double>());
    } else if (lift_peaks.size() >= 2 && !drag_peaks.empty()) {
      const double period = (lift_peaks.back().first - lift_peaks.front().first) / double(lift_peaks.size() - 1);
      double cl_max = -1e300, cd_max = -1e300;
      for (const auto& m : lift_peaks) cl_max = std::max(cl_max, m.second);
      for (const auto& m : drag_peaks) cd_max = std::max(cd_max, m.second);
      const double st = lbm::cases::cylinder_diameter / (period * bench.mean_velocity);
      summary["c_D_max"] = cd_max;
      summary["c_L_max"] = cl_max;
      summary["St"] = st;
      c["periods_analysed"] = lift_peaks.size() - 1;
      std::printf("c_D,max %.4f, c_L,max %.4f, St %.4f (%zu periods), dp %.4f at the end\n", cd_max, cl_max, st,
                  lift_peaks.size() - 1, dp);
    } else {
      summary["c_D_max"] = summary["c_L_max"] = summary["St"] = nullptr;
      std::printf("no periodic shedding in the last quarter of the run (run longer: --time)\n");
    }
  }
  plot_forces(dir, "karman cylinder " + std::string(name) + ", D = " + std::to_string(p.diameter) + ", " + wall_name(p),
              n);
}

/// Least-squares fit y ~ a cos(w t) + b sin(w t) + c over the samples; returns {a, b}.
std::pair<double, double> harmonic_fit(const std::vector<double>& t, const std::vector<double>& y, double w,
                                       std::size_t from) {
  double m[3][4] = {};
  for (std::size_t k = from; k < t.size(); ++k) {
    const double basis[3] = {std::cos(w * t[k]), std::sin(w * t[k]), 1.0};
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) m[i][j] += basis[i] * basis[j];
      m[i][3] += basis[i] * y[k];
    }
  }
  // Gauss-Jordan on the normal equations (positive definite over more than a period).
  for (int i = 0; i < 3; ++i) {
    for (int r = 0; r < 3; ++r) {
      if (r == i) continue;
      const double f = m[r][i] / m[i][i];
      for (int c = i; c < 4; ++c) m[r][c] -= f * m[i][c];
    }
  }
  return {m[0][3] / m[0][0], m[1][3] / m[1][1]};
}

/// `karman cylinder --case oscillating`: the in-line force's Morison coefficients over the second
/// half of the run against Wang's analysis. The cylinder's velocity is U_m sin(w t), so the
/// force's sine part is the drag's fundamental, -1/2 rho D C_d U_m^2 8 / (3 pi), and its cosine
/// part the added mass's, -C_a rho (pi D^2 / 4) U_m w.
int run_oscillating(const comm::Ranks& ranks, RunOptions& opts, const lbm::cases::OscillatingCylinderParams& p,
                    int periods) {
  const auto l = lbm::cases::oscillating_cylinder_lattice(p);
  if (opts.steps == 0 && opts.until_steady == 0) opts.steps = std::max(1L, std::lround(periods * l.period));
  CaseDefinition def;
  def.name = "cylinder";
  def.setup = ranks.run([&] { return lbm::cases::oscillating_cylinder_setup(p, opts.variant); });
  def.parameters = {{"case", "oscillating"},
                    {"diameter", p.diameter},
                    {"wall", "ib"},
                    {"kc", p.kc},
                    {"beta", p.beta},
                    {"velocity", p.max_velocity},
                    {"periods", periods},
                    {"ib_kernel", lbm::delta_kernel_name(p.immersed.kernel)},
                    {"ib_iterations", p.immersed.forcing_iterations},
                    {"ib_retraction", p.immersed.retraction}};
  const auto history = std::make_shared<ForceHistory>();
  def.history = history->columns();
  def.observe_every = std::max(1L, std::lround(l.period / 200.0));
  def.observe = [history, &ranks](lbm::FlowSolver& solver) {
    const auto f = solver.body_force();
    history->step.push_back(double(solver.steps()));
    history->time.push_back(double(solver.steps()));
    history->drag.push_back(ranks.sum(f[0]));
    history->lift.push_back(ranks.sum(f[1]));
  };
  const std::size_t markers = def.setup.immersed_body.markers.size();
  def.finish = [p, l, history, markers](const GlobalFields&, const std::filesystem::path& dir, nlohmann::json& s) {
    const ForceHistory& h = *history;
    io::write_csv(dir / "forces.csv", {"step", "period", "F_x", "F_y"},
                  {h.step,
                   [&] {
                     std::vector<double> t;
                     for (double v : h.time) t.push_back(v / l.period);
                     return t;
                   }(),
                   h.drag, h.lift});
    const double half = 0.5 * (h.time.empty() ? 0.0 : h.time.back());
    std::size_t from = 0;
    while (from < h.time.size() && h.time[from] < half) ++from;
    const auto [a, b] = harmonic_fit(h.time, h.drag, l.omega, from);
    const double d = p.diameter, u = p.max_velocity, volume = 0.25 * 3.14159265358979323846 * d * d;
    const double cd = -3.0 * 3.14159265358979323846 * b / (4.0 * d * u * u);
    const double cm = 1.0 - a / (volume * u * l.omega);
    const auto wang = lbm::cases::stokes_wang(p.kc, p.beta);
    s["cylinder"] = {
        {"case", "oscillating"},
        {"wall", "ib"},
        {"diameter_voxels", p.diameter},
        {"kc", p.kc},
        {"beta", p.beta},
        {"reynolds", p.kc * p.beta},
        {"period_steps", l.period},
        {"amplitude_voxels", l.amplitude},
        {"box_voxels", l.n},
        {"markers", markers},
        {"ib_kernel", lbm::delta_kernel_name(p.immersed.kernel)},
        {"ib_iterations", p.immersed.forcing_iterations},
        {"ib_retraction", p.immersed.retraction},
        {"force_samples", h.time.size()},
        {"analysed_from_period", h.time.empty() ? 0.0 : h.time[std::min(from, h.time.size() - 1)] / l.period}};
    s["C_d"] = cd;
    s["C_m"] = cm;
    s["stokes_wang"] = {{"C_d", wang.drag}, {"C_m", wang.inertia}};
    s["C_d_error"] = cd / wang.drag - 1.0;
    s["C_m_error"] = cm / wang.inertia - 1.0;
    std::printf(
        "  oscillating cylinder, D = %d, KC = %g, beta = %g: C_d %.4f (Wang %.4f, %+.2f %%), C_m %.4f (Wang "
        "%.4f, %+.2f %%)\n",
        p.diameter, p.kc, p.beta, cd, wang.drag, 100 * (cd / wang.drag - 1), cm, wang.inertia,
        100 * (cm / wang.inertia - 1));
  };
  return run_case(ranks, opts, def);
}

}  // namespace

void add_cylinder_command(CLI::App& app, const comm::Ranks& ranks, int& exit_code) {
  auto opts = std::make_shared<RunOptions>();
  auto p = std::make_shared<CylinderParams>();
  auto o = std::make_shared<CylinderOptions>();
  auto* cmd = app.add_subcommand("cylinder",
                                 "Flow around a cylinder (Schäfer & Turek 1996, 2D-1, 2D-2, 3D-1Z and 3D-2Z): drag, "
                                 "lift, dp, L_a (2D-1), St");
  cmd->add_option("--case", o->benchmark,
                  "2d-1 (Re 20, steady), 2d-2 (Re 100, periodic), 3d-1z (Re 20, steady) or 3d-2z (Re 100, periodic): "
                  "the 3D cases in a channel of square cross-section, the cylinder spanning it along z, D3Q19 by "
                  "default; or oscillating (a cylinder oscillating in fluid at rest, --wall ib, against Wang 1968)")
      ->check(CLI::IsMember({"2d-1", "2d-2", "3d-1z", "3d-2z", "oscillating"}))
      ->capture_default_str();
  auto osc = std::make_shared<lbm::cases::OscillatingCylinderParams>();
  cmd->add_option("--kc", osc->kc, "--case oscillating: Keulegan-Carpenter number U_m T / D")
      ->check(CLI::Range(1e-3, 10.0))
      ->capture_default_str();
  cmd->add_option("--beta", osc->beta, "--case oscillating: Stokes number D^2 / (nu T)")
      ->check(CLI::Range(1.0, 1e5))
      ->capture_default_str();
  cmd->add_option("--periods", o->periods, "--case oscillating: periods to run (the second half is analysed)")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->add_option("--diameter", p->diameter,
                  "Voxels across the cylinder D, 4 to 1024 (3D: to 256); the channel is 22 D x 4.1 D in 2D, 25 D x "
                  "4.1 D x 4.1 D in 3D")
      ->check(CLI::Range(4, 1024))
      ->capture_default_str();
  cmd->add_option("--wall", o->wall,
                  "Cylinder surface: bounce-back (half-way), bouzidi-linear or bouzidi-quadratic (Bouzidi et al. "
                  "2001, from the exact circle), or ib (direct-forcing immersed boundaries: markers on the circle, "
                  "in 3D a ring per voxel layer, no solid voxels); the channel walls are half-way bounce-back")
      ->check(CLI::IsMember({"bounce-back", "bouzidi-linear", "bouzidi-quadratic", "ib"}))
      ->capture_default_str();
  cmd->add_option("--ib-kernel", o->ib_kernel,
                  std::string("--wall ib: delta kernel of interpolation and spreading: ") + lbm::delta_kernel_names())
      ->check(CLI::IsMember({"linear", "roma3", "peskin4", "cosine4"}))
      ->capture_default_str();
  cmd->add_option("--ib-iterations", p->immersed.forcing_iterations,
                  "--wall ib: forcing iterations per step (1: direct forcing; more: multi-direct forcing)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--ib-retraction", p->immersed.retraction,
                  "--wall ib: markers this many voxels inside the surface (Breugem 2012)")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd->add_option("--ib-block", p->immersed.marker_block,
                  "--wall ib: the markers' threads follow blocks of l^3 voxels (l^2 in 2D) in x-y-z order, Morton "
                  "order within a block (Chen et al. 2022 Sec. 4.2.2); 0: Morton order over the whole box")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--velocity", o->velocity,
                  "Inflow maximum U_max (3D: U_m) in lattice units (default 0.05 for 2d-1 and 3d-1z, 0.1 for 2d-2 "
                  "and 3d-2z; tau follows from D and Re); --case oscillating: the cylinder's velocity amplitude U_m "
                  "(default 0.02 KC)")
      ->check(positive_finite());
  cmd->add_option("--time", o->end_time,
                  "Benchmark time to run (default: 2d-1 and 3d-1z " + std::to_string(int(default_steady_end_time)) +
                      ", steady, forces averaged over the last quarter; 2d-2 and 3d-2z " +
                      std::to_string(int(default_periodic_end_time)) + ", the last quarter analysed)")
      ->check(positive_finite());
  cmd->add_option("--sample-time", o->sample_time,
                  "Benchmark time between force samples in forces.csv (default 0.02 for the steady cases; 0.005 for "
                  "the periodic ones, about 70 a shedding period)")
      ->check(positive_finite());
  add_run_options(*cmd, *opts);
  cmd->callback([=, &ranks, &exit_code] {
    // TRT with Lambda = 3/16 keeps the wall where the boundary scheme puts it at any tau
    // (Ginzburg, Verhaeghe & d'Humières 2008); BGK moves it with the viscosity.
    if (cmd->count("--collision") == 0) opts->variant.collision = "trt";
    p->wall = o->wall == "bounce-back"      ? lbm::WallInterpolation::bounce_back
              : o->wall == "bouzidi-linear" ? lbm::WallInterpolation::linear
                                            : lbm::WallInterpolation::quadratic;
    p->immersed.enabled = o->wall == "ib";
    p->immersed.kernel = lbm::delta_kernel_from_name(o->ib_kernel);
    if (o->benchmark == "oscillating") {
      if (cmd->count("--lattice") == 0) opts->variant.lattice = "d2q9";
      // A moving body: immersed boundaries only.
      if (cmd->count("--wall") > 0 && o->wall != "ib")
        throw CLI::ValidationError("--wall", "--case oscillating runs with --wall ib only; got --wall " + o->wall);
      osc->diameter = p->diameter;
      osc->immersed = p->immersed;
      osc->immersed.enabled = true;
      // T = KC D / U_m at 1.8 acoustic periods of the box (OscillatingCylinderParams).
      osc->max_velocity = o->velocity > 0 ? o->velocity : 0.02 * osc->kc;
      exit_code = run_oscillating(ranks, *opts, *osc, o->periods);
      return;
    }
    p->benchmark = lbm::cases::cylinder_case_from_name(o->benchmark);
    const auto bench = lbm::cases::cylinder_benchmark(p->benchmark);
    if (cmd->count("--lattice") == 0) opts->variant.lattice = bench.dimension == 3 ? "d3q19" : "d2q9";
    p->max_velocity = o->velocity > 0 ? o->velocity : default_velocity(p->benchmark);
    const CylinderLattice l = lbm::cases::cylinder_lattice(*p);
    if (opts->steps == 0 && opts->until_steady == 0) {
      const double t = o->end_time > 0 ? o->end_time
                       : bench.steady  ? default_steady_end_time
                                       : default_periodic_end_time;
      opts->steps = std::max(1L, std::lround(t / l.dt));
    }
    CaseDefinition def;
    def.name = "cylinder";
    def.setup = ranks.run([&] { return lbm::cases::cylinder_setup(*p, opts->variant); });
    def.spacing = l.dx;
    // Column i is centred on x = i dx, row j on y = (j - 1/2) dx, in 3D layer k on z = (k - 1/2) dx.
    def.origin[0] = -0.5 * l.dx;
    def.origin[1] = -l.dx;
    if (l.dimension == 3) def.origin[2] = -l.dx;
    const double sample_time = o->sample_time > 0 ? o->sample_time : bench.steady ? 0.02 : 0.005;
    def.parameters = {{"case", o->benchmark},        {"diameter", p->diameter}, {"wall", o->wall},
                      {"velocity", p->max_velocity}, {"time", o->end_time},     {"sample_time", sample_time}};
    if (p->immersed.enabled) {
      def.parameters["ib_kernel"] = o->ib_kernel;
      def.parameters["ib_iterations"] = p->immersed.forcing_iterations;
      def.parameters["ib_retraction"] = p->immersed.retraction;
    }
    const auto history = std::make_shared<ForceHistory>();
    def.history = history->columns();
    def.observe_every = std::max(1L, std::lround(sample_time / l.dt));
    // c = 2 F / (rho U_mean^2 D H): in 3D the force on the whole span H (Schäfer & Turek §2.2);
    // in 2D per unit length, H = 1.
    const double coefficient = 2.0 / (l.mean_velocity * l.mean_velocity * p->diameter * l.span);
    const double dt = l.dt;
    def.observe = [history, coefficient, dt, &ranks](lbm::FlowSolver& solver) {
      const auto f = solver.body_force();
      history->step.push_back(double(solver.steps()));
      history->time.push_back(double(solver.steps()) * dt);
      history->drag.push_back(coefficient * ranks.sum(f[0]));
      history->lift.push_back(coefficient * ranks.sum(f[1]));
    };
    const auto params = *p;
    const std::size_t markers = def.setup.immersed_body.markers.size();
    def.finish = [params, history, markers](const GlobalFields& g, const std::filesystem::path& dir,
                                            nlohmann::json& s) {
      finish_cylinder(params, *history, g, dir, s, markers);
    };
    exit_code = run_case(ranks, *opts, def);
  });
}

}  // namespace karman::app
