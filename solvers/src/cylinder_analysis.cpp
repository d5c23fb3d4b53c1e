// The cylinder benchmarks' figures from a run's force history and final fields
// (cylinder_analysis.hpp).
#include <karman/lbm/cases/cylinder_analysis.hpp>
#include <karman/lbm/delta_kernel.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace karman::lbm::cases {
namespace {

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

/// Least-squares fit y ~ a cos(w t) + b sin(w t) + c over the samples from `from` on; returns
/// {a, b}.
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

}  // namespace

double surface_gap(const CylinderParams& p) {
  if (!p.immersed.enabled) return 0.0;
  const int support = dispatch_delta_kernel(p.immersed.kernel, [](auto k) { return decltype(k)::support; });
  return 0.5 * support - p.immersed.retraction;
}

double surface_density(const GlobalFields& g, const CylinderLattice& l, double x, int dir, double gap) {
  return CentreLines(l).sum([&](int j, int k) { return extrapolate_line(g, g.rho, j, k, x, dir, gap); });
}

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

CylinderFigures analyse_cylinder(const CylinderParams& p, const ForceHistory& h, const GlobalFields& g) {
  const CylinderLattice l = cylinder_lattice(p);
  const CylinderBenchmark bench = cylinder_benchmark(p.benchmark);
  CylinderFigures f;
  if (!h.drag.empty()) f.drag = h.drag.back();
  if (!h.lift.empty()) f.lift = h.lift.back();
  // p = rho cs^2, scaled to the benchmark's units by (rho U_mean^2)_benchmark / (rho U_mean^2)_lattice.
  const double pressure_scale = bench.mean_velocity * bench.mean_velocity / (l.mean_velocity * l.mean_velocity);
  const double gap = surface_gap(p);
  const double front = surface_density(g, l, l.centre[0] - l.radius, -1, gap);
  const double back = surface_density(g, l, l.centre[0] + l.radius, +1, gap);
  f.pressure_difference = (front - back) / 3.0 * pressure_scale;
  const std::size_t n = h.time.size(), last_quarter = n - n / 4, last_eighth = n - n / 8;
  if (bench.steady) {
    if (l.dimension == 2) {
      const std::optional<double> la = recirculation_voxels(g, l, gap);
      if (la) f.recirculation_length = *la * l.dx;
    }
    if (n >= 8) {
      // Steady forces: means over the last quarter, through the acoustic waves between inlet
      // and outlet; their drift between its halves says whether the wake had settled.
      f.drag = mean(h.drag, last_quarter, n);
      f.lift = mean(h.lift, last_quarter, n);
      f.averaged_from_time = h.time[last_quarter];
      f.drag_drift = std::fabs(mean(h.drag, last_quarter, last_eighth) - mean(h.drag, last_eighth, n)) / *f.drag;
    }
    return f;
  }
  // The last quarter of the history: the periodic regime, several shedding periods. A periodic
  // regime keeps its amplitude; an oscillation that dies out (a wake settling to a steady
  // state) is not shedding, whatever the spacing of its lift's maxima says. The drag, which
  // swings at twice the shedding frequency, shows it best (the lift of a nearly symmetric wake
  // is a small difference).
  const auto swing = [&](std::size_t from, std::size_t to) {
    const auto [lo, hi] =
        std::minmax_element(h.drag.begin() + std::ptrdiff_t(from), h.drag.begin() + std::ptrdiff_t(to));
    return *hi - *lo;
  };
  f.swing_ratio = n >= 8 ? swing(last_eighth, n) / std::max(swing(last_quarter, last_eighth), 1e-300) : 0.0;
  const auto lift_peaks = maxima(h.time, h.lift, last_quarter);
  const auto drag_peaks = maxima(h.time, h.drag, last_quarter);
  if (n >= 8 && f.swing_ratio < 0.8) {
    f.shedding = Shedding::settling;
    f.drag = mean(h.drag, last_eighth, n);
    f.lift = mean(h.lift, last_eighth, n);
  } else if (lift_peaks.size() >= 2 && !drag_peaks.empty()) {
    f.shedding = Shedding::periodic;
    const double period = (lift_peaks.back().first - lift_peaks.front().first) / double(lift_peaks.size() - 1);
    double cl_max = -1e300, cd_max = -1e300;
    for (const auto& m : lift_peaks) cl_max = std::max(cl_max, m.second);
    for (const auto& m : drag_peaks) cd_max = std::max(cd_max, m.second);
    f.drag_max = cd_max;
    f.lift_max = cl_max;
    f.strouhal = cylinder_diameter / (period * bench.mean_velocity);
    f.periods = lift_peaks.size() - 1;
  }
  return f;
}

MorisonFit morison_fit(const OscillatingCylinderParams& p, const OscillatingCylinderLattice& l, const ForceHistory& h) {
  const double half = 0.5 * (h.time.empty() ? 0.0 : h.time.back());
  MorisonFit fit;
  while (fit.from < h.time.size() && h.time[fit.from] < half) ++fit.from;
  const auto [a, b] = harmonic_fit(h.time, h.drag, l.omega, fit.from);
  const double d = p.diameter, u = p.max_velocity, volume = 0.25 * 3.14159265358979323846 * d * d;
  fit.coefficients.drag = -3.0 * 3.14159265358979323846 * b / (4.0 * d * u * u);
  fit.coefficients.inertia = 1.0 - a / (volume * u * l.omega);
  return fit;
}

}  // namespace karman::lbm::cases
