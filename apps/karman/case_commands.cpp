// The case subcommands: cavity, channel, taylor-green. Each turns its options into a
// CaseDefinition and its own outputs (profiles, vortex centre, errors against theory).
#include "case_commands.hpp"

#include "case_runner.hpp"
#include "level_options.hpp"

#include <karman/core/error.hpp>
#include <karman/io/csv.hpp>
#include <karman/io/json.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/diagnostics/stream_function.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace karman::app {
namespace {

/// Refuses a size below what the case's outputs need to mean anything (the solver itself runs
/// smaller boxes, e.g. in tests), saying why.
void require_resolution(const char* where, const char* option, int value, int least, const char* reason) {
  if (value < least) {
    throw Error(std::string(where) + ": " + option + " = " + std::to_string(value) + " is below " +
                std::to_string(least) + ": " + reason);
  }
}

/// Fills in the default lattice for the dimension when the user named none.
void default_lattice(RunOptions& o, int dim, bool given) {
  if (!given) o.variant.lattice = dim == 3 ? "d3q19" : "d2q9";
}

/// Cavity outputs: centre-line profiles (u/U along x = 1/2, v/U along y = 1/2, through the
/// mid-plane in 3D) with the walls as end points, and for 2D the primary vortex from psi.
void finish_cavity(const lbm::cases::CavityParams& p, const GlobalFields& g, const std::filesystem::path& dir,
                   nlohmann::json& summary) {
  const int n = p.n, mid = n / 2;  // fluid voxels 1..n; the centre line lies between n/2 and n/2 + 1
  const int z = p.dim == 3 ? (n % 2 ? mid + 1 : mid) : 0;
  auto sample = [&](const std::vector<double>& f, int x, int y) {
    // Average the voxels straddling the centre in each odd-free direction.
    double sum = 0;
    int count = 0;
    const int z0 = p.dim == 3 ? z : 0, z1 = p.dim == 3 && n % 2 == 0 ? z + 1 : z0;
    for (int zz = z0; zz <= z1; ++zz) {
      sum += f[g.at(x, y, zz)];
      ++count;
    }
    return sum / count;
  };
  auto column_average = [&](const std::vector<double>& f, int y) {
    return n % 2 ? sample(f, mid + 1, y) : 0.5 * (sample(f, mid, y) + sample(f, mid + 1, y));
  };
  auto row_average = [&](const std::vector<double>& f, int x) {
    return n % 2 ? sample(f, x, mid + 1) : 0.5 * (sample(f, x, mid) + sample(f, x, mid + 1));
  };
  std::vector<double> pos{0.0}, u{0.0}, v{0.0};
  for (int j = 1; j <= n; ++j) {
    pos.push_back((j - 0.5) / n);
    u.push_back(column_average(g.ux, j) / p.lid_velocity);
    v.push_back(row_average(g.uy, j) / p.lid_velocity);
  }
  pos.push_back(1.0);
  u.push_back(1.0);
  v.push_back(0.0);
  io::write_csv(dir / "centerline_u.csv", {"y", "u"}, {pos, u});
  io::write_csv(dir / "centerline_v.csv", {"x", "v"}, {pos, v});
  if (p.dim != 2) return;

  Kokkos::View<double**, Kokkos::LayoutRight> ux("ux", n, n), uy("uy", n, n);
  auto hx = Kokkos::create_mirror_view(ux), hy = Kokkos::create_mirror_view(uy);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      hx(j, i) = g.ux[g.at(i + 1, j + 1, 0)];
      hy(j, i) = g.uy[g.at(i + 1, j + 1, 0)];
    }
  Kokkos::deep_copy(ux, hx);
  Kokkos::deep_copy(uy, hy);
  const auto psi = lbm::compute_stream_function(ux, uy, p.lid_velocity);
  nlohmann::json vortex = {
      {"psi_min", psi.minimum.value},    {"x", psi.minimum.x},         {"y", psi.minimum.y},
      {"psi_max", psi.maximum.value},    {"psi_max_x", psi.maximum.x}, {"psi_max_y", psi.maximum.y},
      {"cg_iterations", psi.iterations}, {"cg_residual", psi.residual}};
  io::write_json(dir / "vortex.json", vortex);
  summary["vortex"] = vortex;
}

/// Channel outputs: the velocity profile across the middle of the channel against the parabola.
void finish_channel(const lbm::cases::ChannelParams& p, const GlobalFields& g, const std::filesystem::path& dir,
                    nlohmann::json& summary) {
  const int x = p.length / 2, z = p.dim == 3 ? p.depth / 2 : 0;
  std::vector<double> y, u, exact;
  double num = 0, den = 0;
  for (int j = 1; j <= p.height; ++j) {
    y.push_back((j - 0.5) / p.height);
    u.push_back(g.ux[g.at(x, j, z)]);
    exact.push_back(lbm::cases::poiseuille_velocity(p, j));
    num += (u.back() - exact.back()) * (u.back() - exact.back());
    den += exact.back() * exact.back();
  }
  io::write_csv(dir / "profile.csv", {"y", "u", "u_exact"}, {y, u, exact});
  summary["l2_error_vs_poiseuille"] = std::sqrt(num / den);
}

/// Taylor-Green outputs: error of the final velocity against the analytic decayed vortex.
void finish_taylor_green(const lbm::cases::TaylorGreenParams& p, long steps, const GlobalFields& g,
                         nlohmann::json& summary) {
  const double k = 2.0 * 3.14159265358979323846 / p.n;
  const double amp = p.velocity * std::exp(-lbm::cases::decay_rate(p) * double(steps));
  double num = 0, den = 0, e_sim = 0;
  for (int y = 0; y < p.n; ++y)
    for (int x = 0; x < p.n; ++x) {
      const double cx = x + 0.5, cy = y + 0.5;
      const double ex = -amp * std::cos(k * cx) * std::sin(k * cy), ey = amp * std::sin(k * cx) * std::cos(k * cy);
      const double sx = g.ux[g.at(x, y, 0)], sy = g.uy[g.at(x, y, 0)];
      num += (sx - ex) * (sx - ex) + (sy - ey) * (sy - ey);
      den += ex * ex + ey * ey;
      e_sim += sx * sx + sy * sy;
    }
  summary["l2_error_vs_analytic"] = std::sqrt(num / den);
  summary["amplitude_ratio"] = std::sqrt(e_sim / den);
}

/// Kinetic energy E(t) / U0^2 of the 3D vortex, per unit volume, sampled by observe() on every rank.
struct EnergyHistory {
  std::vector<double> time;    ///< t U0 / L
  std::vector<double> energy;  ///< E / U0^2 (0.125 at t = 0 but for the density's share)
};

/// 3D Taylor-Green outputs: energy.csv (t, E, its dissipation rate -dE/dt by central differences
/// of the samples, one-sided at the ends, in U0^3 / L) and the dissipation peak, the figure the
/// spectral reference of the workshop's case C3.5 is compared by
/// (tests/validation/check_taylor_green_3d.py).
void finish_taylor_green_3d(const EnergyHistory& h, const std::filesystem::path& dir, nlohmann::json& summary) {
  const std::size_t n = h.time.size();
  std::vector<double> rate(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    rate[i] = -(h.energy[i + 1] - h.energy[i - 1]) / (h.time[i + 1] - h.time[i - 1]);
  }
  if (n > 1) {
    rate.front() = -(h.energy[1] - h.energy[0]) / (h.time[1] - h.time[0]);
    rate.back() = -(h.energy[n - 1] - h.energy[n - 2]) / (h.time[n - 1] - h.time[n - 2]);
  }
  io::write_csv(dir / "energy.csv", {"t", "kinetic_energy", "dissipation_rate"}, {h.time, h.energy, rate});
  // The peak of the central differences from t = 1 on: the first samples hold the acoustic
  // adjustment of the equilibrium initial state, not dissipation.
  std::size_t peak = 0;
  for (std::size_t i = 1; i + 1 < n; ++i)
    if (h.time[i] >= 1.0 && (rate[i] > rate[peak] || h.time[peak] < 1.0)) peak = i;
  summary["taylor_green_3d"] = {{"samples", n},
                                {"final_time", n ? h.time.back() : 0.0},
                                {"final_energy", n ? h.energy.back() : 0.0},
                                {"peak_dissipation_rate", n ? rate[peak] : 0.0},
                                {"peak_time", n ? h.time[peak] : 0.0}};
}

}  // namespace

void add_case_commands(CLI::App& app, const comm::Ranks& ranks, int& exit_code) {
  // Cavity.
  {
    auto opts = std::make_shared<RunOptions>();
    auto p = std::make_shared<lbm::cases::CavityParams>();
    auto* cmd = app.add_subcommand("cavity", "Lid-driven cavity (Ghia et al. 1982): centre lines, vortex, fields");
    cmd->add_option("--dim", p->dim, "2 or 3")->check(CLI::IsMember({2, 3}))->capture_default_str();
    cmd->add_option("--n", p->n, "Fluid voxels per side")->capture_default_str();
    cmd->add_option("--re", p->reynolds, "Reynolds number U N / nu")->check(positive_finite())->capture_default_str();
    cmd->add_option("--lid-velocity", p->lid_velocity, "Lid velocity U (lattice units)")
        ->check(positive_finite())
        ->capture_default_str();
    auto refined = std::make_shared<LevelOptions>();
    add_level_options(*cmd, *refined, "(--n) in a shell along the walls (Meneghin & Mahmoud's Table V cavity)",
                      "the walls");
    add_run_options(*cmd, *opts);
    cmd->callback([=, &ranks, &exit_code] {
      default_lattice(*opts, p->dim, cmd->count("--lattice") > 0);
      CaseDefinition def;
      def.name = "cavity";
      def.setup = ranks.run([&] { return lbm::cases::cavity_setup(*p, opts->variant); });
      ranks.run([&] {
        require_resolution("karman cavity", "--n", p->n, 8,
                           "fewer fluid voxels per side resolve no vortex (the centre lines would hold a few "
                           "wall-bound values; Ghia et al. compare at 129)");
      });
      def.spacing = 1.0 / p->n;
      def.origin[0] = def.origin[1] = -def.spacing;
      def.origin[2] = p->dim == 3 ? -def.spacing : 0.0;
      def.parameters = {{"dim", p->dim}, {"n", p->n}, {"re", p->reynolds}, {"lid_velocity", p->lid_velocity}};
      const auto params = *p;
      def.finish = [params](const GlobalFields& g, const std::filesystem::path& dir, nlohmann::json& s) {
        finish_cavity(params, g, dir, s);
      };
      if (refined->levels > 1) {
        ranks.run([&] {
          require_refined_box("karman cavity", *refined, p->dim, {{"--n", p->n, 2}});
          refine_case(ranks, *refined, near_box_sides(def.setup.global, {true, true, p->dim == 3}), def);
        });
      }
      exit_code = run_case(ranks, *opts, def);
    });
  }
  // Channel.
  {
    auto opts = std::make_shared<RunOptions>();
    auto p = std::make_shared<lbm::cases::ChannelParams>();
    auto drive = std::make_shared<std::string>("force");
    auto* cmd = app.add_subcommand("channel", "Poiseuille channel driven by a body force or a pressure drop");
    cmd->add_option("--dim", p->dim, "2 or 3 (3D: periodic along z)")
        ->check(CLI::IsMember({2, 3}))
        ->capture_default_str();
    cmd->add_option("--height", p->height, "Fluid voxels across the channel (H)")->capture_default_str();
    cmd->add_option("--length", p->length, "Voxels along the flow (x)")->capture_default_str();
    cmd->add_option("--depth", p->depth, "Voxels along z (3D)")->capture_default_str();
    cmd->add_option("--re", p->reynolds, "Reynolds number U_max H / nu")
        ->check(positive_finite())
        ->capture_default_str();
    cmd->add_option("--max-velocity", p->max_velocity, "Centre-line velocity of the parabola")
        ->check(positive_finite())
        ->capture_default_str();
    cmd->add_option("--drive", *drive, "force (periodic, Guo body force) or pressure (regularized inlet/outlet)")
        ->check(CLI::IsMember({"force", "pressure"}))
        ->capture_default_str();
    auto refined = std::make_shared<LevelOptions>();
    add_level_options(*cmd, *refined, "in bands along the walls (and the inlet and outlet with --drive pressure)",
                      "the walls");
    add_run_options(*cmd, *opts);
    cmd->callback([=, &ranks, &exit_code] {
      default_lattice(*opts, p->dim, cmd->count("--lattice") > 0);
      p->drive = *drive == "pressure" ? lbm::cases::ChannelDrive::pressure_drop : lbm::cases::ChannelDrive::body_force;
      CaseDefinition def;
      def.name = "channel";
      def.setup = ranks.run([&] { return lbm::cases::channel_setup(*p, opts->variant); });
      ranks.run([&] {
        require_resolution("karman channel", "--height", p->height, 3,
                           "a Poiseuille profile needs 3 fluid voxels across to show its curvature");
      });
      def.spacing = 1.0 / p->height;
      def.origin[1] = -def.spacing;
      def.parameters = {{"dim", p->dim},     {"height", p->height}, {"length", p->length},
                        {"depth", p->depth}, {"re", p->reynolds},   {"max_velocity", p->max_velocity},
                        {"drive", *drive}};
      const auto params = *p;
      def.finish = [params](const GlobalFields& g, const std::filesystem::path& dir, nlohmann::json& s) {
        finish_channel(params, g, dir, s);
      };
      if (refined->levels > 1) {
        ranks.run([&] {
          std::vector<BoxAxis> axes{{"--length", p->length, 0}, {"--height", p->height, 2}};
          if (p->dim == 3) axes.push_back({"--depth", p->depth, 0});
          require_refined_box("karman channel", *refined, p->dim, axes);
          refine_case(
              ranks, *refined,
              near_box_sides(def.setup.global, {p->drive == lbm::cases::ChannelDrive::pressure_drop, true, false}),
              def);
        });
      }
      exit_code = run_case(ranks, *opts, def);
    });
  }
  // Taylor-Green.
  {
    auto opts = std::make_shared<RunOptions>();
    auto p = std::make_shared<lbm::cases::TaylorGreenParams>();
    auto time = std::make_shared<double>(0.0);
    auto* cmd = app.add_subcommand(
        "taylor-green",
        "Decaying Taylor-Green vortex on a periodic box: 2D against its analytic decay, 3D (Brachet et al. 1983) "
        "with its kinetic energy and dissipation rate over time");
    cmd->add_option("--dim", p->dim, "2 or 3 (3: default lattice d3q27, collision cm)")
        ->check(CLI::IsMember({2, 3}))
        ->capture_default_str();
    cmd->add_option("--n", p->n, "Voxels per side")->capture_default_str();
    cmd->add_option("--re", p->reynolds, "Reynolds number: U0 N / nu in 2D, U0 L / nu with L = N / 2 pi in 3D")
        ->check(positive_finite())
        ->capture_default_str();
    cmd->add_option("--velocity", p->velocity, "Initial velocity amplitude U0")
        ->check(positive_finite())
        ->capture_default_str();
    cmd->add_option("--time", *time, "3D: run to t = T L / U0 instead of --steps (default 12)")
        ->check(positive_finite());
    add_run_options(*cmd, *opts);
    cmd->callback([=, &ranks, &exit_code] {
      default_lattice(*opts, p->dim, cmd->count("--lattice") > 0);
      if (p->dim == 3 && cmd->count("--lattice") == 0) opts->variant.lattice = "d3q27";
      if (p->dim == 3 && cmd->count("--collision") == 0) opts->variant.collision = "cm";
      if (p->dim == 2 && cmd->count("--time") > 0) throw Error("--time applies to --dim 3; give --steps in 2D");
      if (cmd->count("--time") > 0 && cmd->count("--steps") + cmd->count("--until-steady") > 0) {
        throw Error("--time and --steps/--until-steady contradict each other: give one");
      }
      const double t_c = lbm::cases::convective_time(*p);
      if (p->dim == 3 && opts->steps == 0 && opts->until_steady == 0) {
        opts->steps = std::max(1L, std::lround((*time > 0 ? *time : 12.0) * t_c));
      }
      CaseDefinition def;
      def.name = "taylor-green";
      def.setup = ranks.run([&] { return lbm::cases::taylor_green_setup(*p, opts->variant); });
      def.spacing = 1.0 / p->n;
      def.parameters = {{"dim", p->dim}, {"n", p->n}, {"re", p->reynolds}, {"velocity", p->velocity}};
      const auto params = *p;
      if (p->dim == 2) {
        def.parameters["decay_rate"] = lbm::cases::decay_rate(*p);
        def.finish = [params](const GlobalFields& g, const std::filesystem::path&, nlohmann::json& s) {
          finish_taylor_green(params, s["steps_run"].get<long>(), g, s);
        };
      } else {
        def.parameters["convective_time_steps"] = t_c;
        // About 40 samples per L / U0: the dissipation peak spans a few units of time.
        def.observe_every = std::max(1L, std::lround(t_c / 40.0));
        const auto history = std::make_shared<EnergyHistory>();
        def.history = {{"time", &history->time}, {"energy", &history->energy}};
        const double norm = double(p->n) * p->n * p->n * p->velocity * p->velocity;
        def.observe = [history, t_c, norm, &ranks](lbm::FlowSolver& solver) {
          const double e = ranks.sum(lbm::kinetic_energy(solver.moments()));
          history->time.push_back(double(solver.steps()) / t_c);
          history->energy.push_back(e / norm);
        };
        def.finish = [history](const GlobalFields&, const std::filesystem::path& dir, nlohmann::json& s) {
          finish_taylor_green_3d(*history, dir, s);
        };
      }
      exit_code = run_case(ranks, *opts, def);
    });
  }
  add_cylinder_command(app, ranks, exit_code);
  add_porous_command(app, ranks, exit_code);
}

}  // namespace karman::app
