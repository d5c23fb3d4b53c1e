// `karman cylinder`: the Schäfer-Turek (1996) cylinder benchmarks 2D-1, 2D-2, 3D-1Z and 3D-2Z.
// The run records the force on the cylinder (momentum exchange, or the immersed boundary's
// reaction) every few steps, and the outputs turn it into the benchmark's coefficients: drag
// and lift, the pressure difference across the cylinder, the recirculation length (2D-1), the
// Strouhal number and the force maxima (2D-2, 3D-2Z).
#include "case_commands.hpp"
#include "case_runner.hpp"
#include "level_options.hpp"

#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/csv.hpp>
#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/cases/cylinder_analysis.hpp>

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
using lbm::cases::CylinderFigures;
using lbm::cases::CylinderLattice;
using lbm::cases::CylinderParams;
using lbm::cases::ForceHistory;
using lbm::cases::Shedding;

/// The columns of a force history by name, for the case's checkpointed history
/// (CaseDefinition::history).
std::map<std::string, std::vector<double>*> columns(ForceHistory& h) {
  return {{"step", &h.step}, {"time", &h.time}, {"drag", &h.drag}, {"lift", &h.lift}};
}

/// A figure for summary.json: null where it is not defined.
nlohmann::json figure(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

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

/// Cylinder outputs: the force history (CSV and plot) and the benchmark's figures
/// (lbm::cases::analyse_cylinder) in summary.json and on the terminal.
void finish_cylinder(const CylinderParams& p, const ForceHistory& h, const GlobalFields& g,
                     const std::filesystem::path& dir, nlohmann::json& summary, std::size_t markers) {
  const CylinderLattice l = lbm::cases::cylinder_lattice(p);
  const auto bench = lbm::cases::cylinder_benchmark(p.benchmark);
  const char* name = lbm::cases::cylinder_case_name(p.benchmark);
  io::write_csv(dir / "forces.csv", {"step", "time", "c_D", "c_L"}, {h.step, h.time, h.drag, h.lift});
  const CylinderFigures f = lbm::cases::analyse_cylinder(p, h, g);
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
  summary["c_D"] = figure(f.drag);
  summary["c_L"] = figure(f.lift);
  summary["dp"] = f.pressure_difference;
  std::printf("  cylinder %s, D = %d, %s: ", name, p.diameter, wall_name(p).c_str());
  if (bench.steady) {
    if (l.dimension == 2) summary["L_a"] = figure(f.recirculation_length);
    if (f.averaged_from_time) c["averaged_from_time"] = *f.averaged_from_time;
    if (f.drag_drift) c["c_D_drift"] = *f.drag_drift;
    std::printf("c_D %.5f, c_L %.5f, dp %.5f", f.drag.value_or(NAN), f.lift.value_or(NAN), f.pressure_difference);
    if (l.dimension == 2) {
      std::printf(", L_a %s", f.recirculation_length ? std::to_string(*f.recirculation_length).c_str() : "none");
    }
    std::printf("\n");
    if (f.drag_drift.value_or(0.0) > 1e-3)
      std::printf("  note: c_D drifts by %.2g between the last eighths: not steady yet (--time)\n", *f.drag_drift);
  } else {
    c["c_D_swing_ratio"] = f.swing_ratio;
    summary["c_D_max"] = figure(f.drag_max);
    summary["c_L_max"] = figure(f.lift_max);
    summary["St"] = figure(f.strouhal);
    if (f.shedding == Shedding::settling) {
      std::printf(
          "no periodic shedding: the drag's swing fell to %.2f of itself between the last eighths of the run "
          "(the wake settles); c_D %.4f, c_L %.5f at the end\n",
          f.swing_ratio, f.drag.value_or(NAN), f.lift.value_or(NAN));
    } else if (f.shedding == Shedding::periodic) {
      c["periods_analysed"] = f.periods;
      std::printf("c_D,max %.4f, c_L,max %.4f, St %.4f (%zu periods), dp %.4f at the end\n", *f.drag_max, *f.lift_max,
                  *f.strouhal, f.periods, f.pressure_difference);
    } else {
      std::printf("no periodic shedding in the last quarter of the run (run longer: --time)\n");
    }
  }
  plot_forces(dir, "karman cylinder " + std::string(name) + ", D = " + std::to_string(p.diameter) + ", " + wall_name(p),
              h.time.size());
}

/// `karman cylinder --case oscillating`: the in-line force's Morison coefficients over the second
/// half of the run (lbm::cases::morison_fit) against Wang's analysis.
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
  def.history = columns(*history);
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
    const lbm::cases::MorisonFit fit = lbm::cases::morison_fit(p, l, h);
    const std::size_t from = fit.from;
    const double cd = fit.coefficients.drag, cm = fit.coefficients.inertia;
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
  auto refined = std::make_shared<LevelOptions>();
  refined->depths = {16};  // 0.8 D at D = 20: the jumps clear of the recirculation (docs/multiresolution.md)
  add_level_options(*cmd, *refined, "(--diameter) around the cylinder, its wall bounce-back or Bouzidi's",
                    "the cylinder's surface");
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
    p->levels = refined->levels;
    if (p->levels > 1 && p->immersed.enabled)
      throw CLI::ValidationError("--levels",
                                 "--levels runs with a curved wall (bounce-back or Bouzidi), not --wall ib");
    p->benchmark = lbm::cases::cylinder_case_from_name(o->benchmark);
    const auto bench = lbm::cases::cylinder_benchmark(p->benchmark);
    if (cmd->count("--lattice") == 0) opts->variant.lattice = bench.dimension == 3 ? "d3q19" : "d2q9";
    p->max_velocity = o->velocity > 0 ? o->velocity : default_velocity(p->benchmark);
    const CylinderLattice l = lbm::cases::cylinder_lattice(*p);
    // A step of the solver is one of its coarsest level: 2^(levels - 1) steps of the finest.
    const double dt = l.dt * double(1 << (p->levels - 1));
    if (opts->steps == 0 && opts->until_steady == 0) {
      const double t = o->end_time > 0 ? o->end_time
                       : bench.steady  ? default_steady_end_time
                                       : default_periodic_end_time;
      opts->steps = std::max(1L, std::lround(t / dt));
    }
    CaseDefinition def;
    def.name = "cylinder";
    def.setup = ranks.run([&] { return lbm::cases::cylinder_setup(*p, opts->variant); });
    def.spacing = l.dx;
    // Column i is centred on x = (i - inlet_x) dx, row j on y = (j - wall_rows + 1/2) dx, in 3D
    // layer k on z alike (cylinder.hpp).
    def.origin[0] = -(l.inlet_x + 0.5) * l.dx;
    def.origin[1] = -l.wall_rows * l.dx;
    if (l.dimension == 3) def.origin[2] = -l.wall_rows * l.dx;
    const double sample_time = o->sample_time > 0 ? o->sample_time : bench.steady ? 0.02 : 0.005;
    def.parameters = {{"case", o->benchmark},        {"diameter", p->diameter}, {"wall", o->wall},
                      {"velocity", p->max_velocity}, {"time", o->end_time},     {"sample_time", sample_time}};
    if (p->immersed.enabled) {
      def.parameters["ib_kernel"] = o->ib_kernel;
      def.parameters["ib_iterations"] = p->immersed.forcing_iterations;
      def.parameters["ib_retraction"] = p->immersed.retraction;
    }
    const auto history = std::make_shared<ForceHistory>();
    def.history = columns(*history);
    def.observe_every = std::max(1L, std::lround(sample_time / dt));
    // c = 2 F / (rho U_mean^2 D H): in 3D the force on the whole span H (Schäfer & Turek §2.2);
    // in 2D per unit length, H = 1.
    const double coefficient = 2.0 / (l.mean_velocity * l.mean_velocity * p->diameter * l.span);
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
    if (p->levels > 1) {
      refine_case(ranks, *refined, lbm::cases::cylinder_refinement(params), def);
    }
    exit_code = run_case(ranks, *opts, def);
  });
}

}  // namespace karman::app
