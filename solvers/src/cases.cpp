// Case setups: geometry, boundary values, initial state and relaxation from physical inputs.
#include <karman/core/error.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/cases/taylor_green.hpp>
#include <karman/lbm/refined_solver_factory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace karman::lbm::cases {
namespace {

constexpr double pi = 3.14159265358979323846;

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// The smallest tau the cases accept for `collision`. BGK, TRT and raw-moment MRT lose stability
/// as tau -> 1/2, the inviscid limit: below 1/2 + 1e-3 runs blow up. The central-moment collision
/// (Chen et al., seed 002 §2.3) relaxes the higher-order moments in the frame moving with the
/// fluid at their own rate and stays bounded much closer to it: 3D Taylor-Green at Re 1600 on 16^3
/// runs at tau = 0.5005 (collision_validation_test, docs/validation.md), where BGK diverges.
double minimum_tau(const CollisionChoice& collision) { return collision == "cm" ? 0.5 + 1e-4 : 0.5 + 1e-3; }

/// Relaxation from viscosity, refusing unstable values (tau <= 1/2 is unstable; Mach >= 0.3 leaves the low-Mach
/// expansion).
RelaxationParams relaxation_for(double nu, double velocity, const std::string& inputs, const Variant& variant) {
  const double tau = 3.0 * nu + 0.5;
  const double min_tau = minimum_tau(variant.collision);
  if (!(nu > 0.0) || !(tau >= min_tau)) {
    throw Error("tau = " + fmt(tau) + " must be > 1/2 (at least " + fmt(min_tau) + " with --collision " +
                variant.collision.name() + "; nu = " + fmt(nu) + " from " + inputs +
                "); raise the resolution or the velocity, or lower Re");
  }
  const double mach = std::fabs(velocity) * std::sqrt(3.0);
  if (mach >= 0.3) {
    throw Error("Mach number U/cs = " + fmt(mach) + " must be < 0.3 (U = " + fmt(velocity) +
                " lattice units); lower the velocity and raise the resolution to keep Re");
  }
  RelaxationParams r;
  r.omega = 1.0 / tau;
  return r;
}

void require_positive_size(const char* name, int value) { require_in_range("karman", name, value, 1, 1 << 16); }

/// U_mean / U_max of the cylinder's inflow: a parabola's (2D) or a product of two (3D).
double cylinder_mean_ratio(int dimension) { return dimension == 3 ? 4.0 / 9.0 : 2.0 / 3.0; }

}  // namespace

double viscosity(const CavityParams& p) { return p.lid_velocity * p.n / p.reynolds; }
double viscosity(const ChannelParams& p) { return p.max_velocity * p.height / p.reynolds; }
double viscosity(const TaylorGreenParams& p) { return p.velocity * (p.dim == 3 ? p.n / (2.0 * pi) : p.n) / p.reynolds; }

SolverSetup cavity_setup(const CavityParams& p, const Variant& variant) {
  require_in_range("karman cavity", "--dim", p.dim, 2, 3);
  require_in_range("karman cavity", "--n", p.n, 2, 1 << 14);
  if (!(p.reynolds > 0)) throw Error("karman cavity: --re = " + fmt(p.reynolds) + " must be > 0");
  SolverSetup s;
  s.variant = variant;
  const int w = p.n + 2;
  s.global = {w, w, p.dim == 3 ? w : 1};
  s.relaxation = relaxation_for(
      viscosity(p), p.lid_velocity,
      "U = " + fmt(p.lid_velocity) + ", N = " + std::to_string(p.n) + ", Re = " + fmt(p.reynolds), variant);
  s.boundaries.values[1].u[0] = p.lid_velocity;  // id 1: the lid; id 0: walls at rest
  const int dim = p.dim;
  s.geometry = [w, dim](int x, int y, int z) {
    const bool wall = x == 0 || x == w - 1 || y == 0 || (dim == 3 && (z == 0 || z == w - 1));
    if (y == w - 1) return CellSpec{CellKind::solid, 1};
    return wall ? CellSpec{CellKind::solid, 0} : CellSpec{};
  };
  return s;
}

double poiseuille_velocity(const ChannelParams& p, int j) {
  const double y = j - 0.5, h = p.height;
  return p.max_velocity * 4.0 * y * (h - y) / (h * h);
}

SolverSetup channel_setup(const ChannelParams& p, const Variant& variant) {
  require_in_range("karman channel", "--dim", p.dim, 2, 3);
  require_positive_size("--height", p.height);
  require_in_range("karman channel", "--length", p.length, 2, 1 << 16);
  if (p.dim == 3) require_in_range("karman channel", "--depth", p.depth, 2, 1 << 16);
  SolverSetup s;
  s.variant = variant;
  const int wy = p.height + 2;
  s.global = {p.length, wy, p.dim == 3 ? p.depth : 1};
  const double nu = viscosity(p);
  s.relaxation = relaxation_for(
      nu, p.max_velocity,
      "U_max = " + fmt(p.max_velocity) + ", H = " + std::to_string(p.height) + ", Re = " + fmt(p.reynolds), variant);
  s.periodic = {p.drive == ChannelDrive::body_force, false, true};
  // U_max = F H^2 / (8 nu) for the body force; dp/dx = -F for the pressure drop.
  const double force = 8.0 * nu * p.max_velocity / (double(p.height) * p.height);
  const int length = p.length;
  if (p.drive == ChannelDrive::body_force) {
    s.relaxation.force[0] = force;
    s.geometry = [wy](int, int y, int) { return (y == 0 || y == wy - 1) ? CellSpec{CellKind::solid, 0} : CellSpec{}; };
  } else {
    // rho_in - rho_out = F (L - 1) / cs^2 across the L - 1 lattice spacings between the faces.
    const double drho = 3.0 * force * (length - 1);
    s.boundaries.values[1] = {1.0 + 0.5 * drho, {0, 0, 0}, 0, +1};
    s.boundaries.values[2] = {1.0 - 0.5 * drho, {0, 0, 0}, 0, -1};
    s.geometry = [wy, length](int x, int y, int) {
      if (y == 0 || y == wy - 1) return CellSpec{CellKind::solid, 0};
      if (x == 0) return CellSpec{CellKind::pressure_boundary, 1};
      if (x == length - 1) return CellSpec{CellKind::pressure_boundary, 2};
      return CellSpec{};
    };
    s.initial = [drho, length](int x, int, int) {
      FlowState st;
      st.rho = 1.0 + 0.5 * drho - drho * x / (length - 1.0);
      return st;
    };
  }
  return s;
}

double decay_rate(const TaylorGreenParams& p) {
  const double k = 2.0 * pi / p.n;
  return 2.0 * viscosity(p) * k * k;
}

double convective_time(const TaylorGreenParams& p) { return p.n / (2.0 * pi) / p.velocity; }

SolverSetup taylor_green_setup(const TaylorGreenParams& p, const Variant& variant) {
  require_in_range("karman taylor-green", "--dim", p.dim, 2, 3);
  require_in_range("karman taylor-green", "--n", p.n, 4, p.dim == 3 ? 1 << 12 : 1 << 16);
  SolverSetup s;
  s.variant = variant;
  s.global = {p.n, p.n, p.dim == 3 ? p.n : 1};
  s.periodic = {true, true, true};
  s.relaxation =
      relaxation_for(viscosity(p), p.velocity,
                     "U0 = " + fmt(p.velocity) + ", N = " + std::to_string(p.n) + ", Re = " + fmt(p.reynolds), variant);
  const double k = 2.0 * pi / p.n, u0 = p.velocity;
  if (p.dim == 3) {
    // Density carries the pressure field, p - p0 = (rho - 1) / 3.
    s.initial = [k, u0](int x, int y, int z) {
      const double cx = k * (x + 0.5), cy = k * (y + 0.5), cz = k * (z + 0.5);
      FlowState st;
      st.u[0] = u0 * std::sin(cx) * std::cos(cy) * std::cos(cz);
      st.u[1] = -u0 * std::cos(cx) * std::sin(cy) * std::cos(cz);
      st.rho = 1.0 + 3.0 * u0 * u0 / 16.0 * (std::cos(2 * cx) + std::cos(2 * cy)) * (std::cos(2 * cz) + 2.0);
      return st;
    };
    return s;
  }
  s.initial = [k, u0](int x, int y, int) {
    const double cx = x + 0.5, cy = y + 0.5;
    FlowState st;
    st.u[0] = -u0 * std::cos(k * cx) * std::sin(k * cy);
    st.u[1] = u0 * std::sin(k * cx) * std::cos(k * cy);
    st.rho = 1.0 - 3.0 * u0 * u0 / 4.0 * (std::cos(2 * k * cx) + std::cos(2 * k * cy));
    return st;
  };
  return s;
}

const char* cylinder_case_name(CylinderCase c) {
  switch (c) {
    case CylinderCase::steady_2d1:
      return "2d-1";
    case CylinderCase::periodic_2d2:
      return "2d-2";
    case CylinderCase::steady_3d1z:
      return "3d-1z";
    case CylinderCase::periodic_3d2z:
      return "3d-2z";
  }
  return "";
}

CylinderCase cylinder_case_from_name(const std::string& name) {
  for (CylinderCase c :
       {CylinderCase::steady_2d1, CylinderCase::periodic_2d2, CylinderCase::steady_3d1z, CylinderCase::periodic_3d2z}) {
    if (name == cylinder_case_name(c)) return c;
  }
  throw Error("karman cylinder: --case '" + name + "' unknown; accepted: 2d-1, 2d-2, 3d-1z, 3d-2z");
}

CylinderBenchmark cylinder_benchmark(CylinderCase c) {
  const bool three_d = c == CylinderCase::steady_3d1z || c == CylinderCase::periodic_3d2z;
  const bool steady = c == CylinderCase::steady_2d1 || c == CylinderCase::steady_3d1z;
  CylinderBenchmark b;
  b.dimension = three_d ? 3 : 2;
  b.steady = steady;
  b.channel_length = three_d ? 2.5 : 2.2;
  b.centre_x = three_d ? 0.5 : 0.2;
  // U_mean = 0.2 (Re 20) or 1 (Re 100): the mean of a parabola is 2/3 of its maximum, that of
  // the product of two parabolas 4/9.
  b.max_velocity = three_d ? (steady ? 0.45 : 2.25) : (steady ? 0.3 : 1.5);
  b.mean_velocity = cylinder_mean_ratio(b.dimension) * b.max_velocity;
  b.reynolds = b.mean_velocity * cylinder_diameter / cylinder_viscosity;
  b.friction = three_d ? 28.454 : 12.0;
  return b;
}

CylinderLattice cylinder_lattice(const CylinderParams& p) {
  const CylinderBenchmark b = cylinder_benchmark(p.benchmark);
  CylinderLattice l;
  l.dimension = b.dimension;
  l.dx = cylinder_diameter / p.diameter;
  // A coarsest voxel spans c finest ones; the box is a whole number of coarsest blocks.
  const int c = 1 << (p.levels - 1), tile = p.levels > 1 ? refined_box_multiple(b.dimension, p.levels) : 1;
  const auto whole = [tile](int n) { return (n + tile - 1) / tile * tile; };
  l.wall_rows = c;
  l.outlet_x = int(std::lround(b.channel_length / l.dx));
  l.inlet_x = 0.5 * (c - 1);
  l.nx = whole(l.outlet_x + c);
  l.fluid_rows = int(std::lround(cylinder_channel_height / l.dx));
  l.ny = whole(l.fluid_rows + 2 * c);
  l.nz = b.dimension == 3 ? whole(l.fluid_rows + 2 * c) : 1;
  l.dt = p.max_velocity * l.dx / b.max_velocity;
  l.mean_velocity = cylinder_mean_ratio(b.dimension) * p.max_velocity;
  l.viscosity = l.mean_velocity * p.diameter / b.reynolds;
  // Row j holds y = (j - c + 1/2) dx: y = 0 is the wall half-way between rows c - 1 and c; so do
  // the layers along z in 3D, whose middle z = H / 2 lies half-way between layers c and c - 1 +
  // rows. x is counted from the inlet plane.
  l.centre[0] = b.centre_x / l.dx + l.inlet_x;
  l.centre[1] = p.centre_y / l.dx + c - 0.5;
  l.radius = 0.5 * p.diameter;
  l.middle_z = b.dimension == 3 ? c - 0.5 + 0.5 * l.fluid_rows : 0.0;
  l.span = b.dimension == 3 ? l.fluid_rows : 1.0;
  return l;
}

std::function<bool(const std::array<int, 3>& first, int span, int depth)> cylinder_refinement(const CylinderParams& p) {
  const CylinderLattice l = cylinder_lattice(p);
  const int tile = refined_box_multiple(l.dimension, p.levels), last = l.outlet_x / tile * tile;
  return [tile, last, cx = l.centre[0], cy = l.centre[1], radius = l.radius](const std::array<int, 3>& first, int span,
                                                                             int depth) {
    if (first[0] < 2 * tile - span || first[0] + tile > last) return false;
    const double dx = std::max({first[0] - cx, cx - (first[0] + span - 1), 0.0}),
                 dy = std::max({first[1] - cy, cy - (first[1] + span - 1), 0.0});
    return std::hypot(dx, dy) < radius + depth;
  };
}

namespace {

/// Throws karman::Error, naming the diameters that fit, where the channel's fluid rows or its
/// length in finest voxels are no whole number of the coarsest voxels of p.levels levels.
void require_whole_coarsest_voxels(const CylinderParams& p, const CylinderLattice& l) {
  const int c = l.wall_rows;
  const auto fits = [&](int diameter) {
    CylinderParams q = p;
    q.diameter = diameter;
    const CylinderLattice m = cylinder_lattice(q);
    return m.fluid_rows % c == 0 && m.outlet_x % c == 0;
  };
  if (fits(p.diameter)) return;
  int above = p.diameter + 1;
  while (!fits(above)) ++above;
  throw Error("karman cylinder: --diameter " + std::to_string(p.diameter) + " with --levels " +
              std::to_string(p.levels) + ": the channel's " + std::to_string(l.fluid_rows) + " fluid rows and " +
              std::to_string(l.outlet_x) + " columns must be whole voxels of the coarsest level (" + std::to_string(c) +
              " finest voxels); e.g. --diameter " + std::to_string(above));
}

}  // namespace

SolverSetup cylinder_setup(const CylinderParams& p, const Variant& variant) {
  const CylinderBenchmark bench = cylinder_benchmark(p.benchmark);
  const bool three_d = bench.dimension == 3;
  // A 3D box holds about 420 D^3 voxels: D = 256 is 7e9, past any one GPU; the memory check of
  // the run refuses what does not fit the machine at hand.
  require_in_range(three_d ? "karman cylinder (3D)" : "karman cylinder", "--diameter", p.diameter, 4,
                   three_d ? 256 : 1024);
  if (!(p.centre_y - 0.5 * cylinder_diameter > 0 && p.centre_y + 0.5 * cylinder_diameter < cylinder_channel_height)) {
    throw Error("karman cylinder: centre y = " + fmt(p.centre_y) + " out of range (0.05, 0.36)");
  }
  const CylinderLattice l = cylinder_lattice(p);
  if (p.levels > 1) require_whole_coarsest_voxels(p, l);
  SolverSetup s;
  s.variant = variant;
  s.global = {l.nx, l.ny, l.nz};
  s.relaxation = relaxation_for(
      l.viscosity, p.max_velocity,
      "U_max = " + fmt(p.max_velocity) + ", D = " + std::to_string(p.diameter) + ", Re = " + fmt(bench.reynolds),
      variant);
  // Ids: 0 channel walls, 1 inlet, 2 outlet, 3 the cylinder.
  constexpr int inlet = 1, outlet = 2, body = 3;
  BoundaryValue& in = s.boundaries.values[inlet];
  in.u[0] = p.max_velocity;
  in.normal_axis = 0;
  in.normal_sign = +1;
  // The parabolas vanish on the walls half-way between the wall rows (layers) and the fluid.
  const int c = l.wall_rows, rows = l.fluid_rows;
  for (int k = 0; k < bench.dimension - 1; ++k) {
    in.profile_axis[k] = 1 + k;
    in.profile_lo[k] = c - 0.5;
    in.profile_hi[k] = c + rows - 0.5;
  }
  s.boundaries.values[outlet] = {1.0, {0, 0, 0}, 0, -1};
  const int out = l.outlet_x;
  const double cx = l.centre[0], cy = l.centre[1], r = l.radius;
  auto inside = [cx, cy, r](double x, double y) { return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r; };
  // Inside the channel's walls (3D: its four walls) and between its inlet and outlet.
  auto channel = [c, rows, out, three_d](int x, int y, int z) {
    const auto across = [c, rows](int j) { return j >= c && j < c + rows; };
    return x < out + c && across(y) && (!three_d || across(z));
  };
  const bool immersed = p.immersed.enabled;
  s.geometry = [channel, c, out, inside, immersed](int x, int y, int z) {
    if (!channel(x, y, z)) return CellSpec{CellKind::solid, 0};
    if (x < c) return CellSpec{CellKind::velocity_boundary, inlet};
    if (x >= out) return CellSpec{CellKind::pressure_boundary, outlet};
    if (!immersed && inside(x, y)) return CellSpec{CellKind::solid, body};
    return CellSpec{};
  };
  if (immersed) {
    const ImmersedCylinder& ib = p.immersed;
    if (!(ib.retraction >= 0 && ib.retraction <= 0.5))
      throw Error("karman cylinder: --ib-retraction " + fmt(ib.retraction) + " out of range [0, 0.5]");
    if (!(ib.spacing >= 0.25 && ib.spacing <= 2))
      throw Error("karman cylinder: marker spacing " + fmt(ib.spacing) + " out of range [0.25, 2]");
    require_in_range("karman cylinder", "--ib-iterations", ib.forcing_iterations, 1, 100);
    const double marker_radius = r - ib.retraction;
    const int count = int(std::ceil(2.0 * pi * marker_radius / ib.spacing));
    if (three_d) {
      // One ring in the plane of each fluid layer, so the rings lie one voxel apart and each
      // marker stands for its arc times that voxel of span.
      for (int k = c; k < c + rows; ++k) {
        const MarkerSet ring = circle_markers(cx, cy, double(k), marker_radius, count);
        auto& m = s.immersed_body.markers;
        m.position.insert(m.position.end(), ring.position.begin(), ring.position.end());
        m.area.insert(m.area.end(), ring.area.begin(), ring.area.end());
      }
    } else {
      s.immersed_body.markers = circle_markers(cx, cy, 0.0, marker_radius, count);
    }
    s.immersed_body.kernel = ib.kernel;
    s.immersed_body.forcing_iterations = ib.forcing_iterations;
    s.immersed_body.marker_block = ib.marker_block;
    s.immersed_body.volume = pi * r * r * l.span;
  } else {
    s.curved_wall.id = body;
    s.curved_wall.interpolation = p.wall;
    // The cylinder does not vary along z: a link cuts it where its projection on the plane
    // z = const cuts the circle.
    s.curved_wall.fraction = [cx, cy, r](int x, int y, int, int dx, int dy, int) {
      const double a[3] = {double(x), double(y), 0.0}, b[3] = {double(x + dx), double(y + dy), 0.0},
                   c[3] = {cx, cy, 0.0};
      return circle_link_fraction(a, b, c, r);
    };
  }
  // The inflow profile everywhere but in the body, with the fully developed flow's pressure
  // gradient G = k nu U_mean / H^2 (CylinderBenchmark::friction) down to the outlet's rho = 1:
  // the channel starts close to its steady state. Its slowest acoustic mode, a wave between
  // the reflecting inlet and outlet that viscosity damps only over ~L^2 / nu steps, is then
  // hardly excited.
  const BoundaryValue profile = in;
  const double drho_dx = -3.0 * bench.friction * l.viscosity * l.mean_velocity / (double(rows) * rows);
  const double outlet_plane = out + l.inlet_x;
  s.initial = [profile, inside, channel, drho_dx, outlet_plane](int x, int y, int z) {
    FlowState st;
    st.rho = 1.0 - drho_dx * (outlet_plane - std::min(double(x), outlet_plane));
    if (channel(x, y, z) && !inside(x, y)) {
      const double at[3] = {double(x), double(y), double(z)};
      st.u[0] = profile.u[0] * profile.profile(at);
    }
    return st;
  };
  return s;
}

OscillatingCylinderLattice oscillating_cylinder_lattice(const OscillatingCylinderParams& p) {
  OscillatingCylinderLattice l;
  l.n = p.box_diameters * p.diameter;
  l.period = p.kc * p.diameter / p.max_velocity;
  l.amplitude = p.max_velocity * l.period / (2.0 * pi);
  l.omega = 2.0 * pi / l.period;
  l.viscosity = double(p.diameter) * p.diameter / (p.beta * l.period);
  // Voxel i sits at coordinate i: the centre half-way between the middle voxels.
  l.centre[0] = l.centre[1] = 0.5 * (l.n - 1);
  return l;
}

SolverSetup oscillating_cylinder_setup(const OscillatingCylinderParams& p, const Variant& variant) {
  require_in_range("karman cylinder --case oscillating", "--diameter", p.diameter, 4, 1024);
  require_in_range("karman cylinder --case oscillating", "box diameters", p.box_diameters, 4, 64);
  if (!(p.kc > 0 && p.kc <= 10)) throw Error("karman cylinder: --kc " + fmt(p.kc) + " out of range (0, 10]");
  if (!(p.beta >= 1 && p.beta <= 1e5)) throw Error("karman cylinder: --beta " + fmt(p.beta) + " out of range [1, 1e5]");
  const OscillatingCylinderLattice l = oscillating_cylinder_lattice(p);
  SolverSetup s;
  s.variant = variant;
  s.global = {l.n, l.n, 1};
  s.periodic = {true, true, true};
  s.relaxation = relaxation_for(l.viscosity, p.max_velocity,
                                "U_m = " + fmt(p.max_velocity) + ", D = " + std::to_string(p.diameter) +
                                    ", KC = " + fmt(p.kc) + ", beta = " + fmt(p.beta),
                                variant);
  const ImmersedCylinder& ib = p.immersed;
  if (!(ib.retraction >= 0 && ib.retraction <= 0.5))
    throw Error("karman cylinder: --ib-retraction " + fmt(ib.retraction) + " out of range [0, 0.5]");
  require_in_range("karman cylinder", "--ib-iterations", ib.forcing_iterations, 1, 100);
  const double r = 0.5 * p.diameter, marker_radius = r - ib.retraction;
  const int count = int(std::ceil(2.0 * pi * marker_radius / ib.spacing));
  s.immersed_body.markers = circle_markers(l.centre[0], l.centre[1], 0.0, marker_radius, count);
  s.immersed_body.kernel = ib.kernel;
  s.immersed_body.forcing_iterations = ib.forcing_iterations;
  s.immersed_body.marker_block = ib.marker_block;
  s.immersed_body.volume = pi * r * r;
  // x(t) = -A h(t) cos(w t) with the envelope h = 1 - exp(-(t / T)^2): the body starts at rest
  // without a jump in acceleration, which would ring the box's acoustic modes for the whole run
  // (viscosity damps them only over ~(L / 2 pi)^2 / nu steps). h = 1 to 1e-16 after six periods.
  const double a = l.amplitude, w = l.omega, ramp = l.period;
  s.immersed_body.motion = [a, w, ramp](double t) {
    const double e = std::exp(-(t / ramp) * (t / ramp));
    const double h = 1.0 - e, dh = 2.0 * t / (ramp * ramp) * e;
    const double ddh = (2.0 / (ramp * ramp) - 4.0 * t * t / (ramp * ramp * ramp * ramp)) * e;
    const double c = std::cos(w * t), sn = std::sin(w * t);
    RigidMotion m;
    m.displacement[0] = -a * h * c;
    m.velocity[0] = -a * (dh * c - h * w * sn);
    m.acceleration[0] = -a * (ddh * c - 2.0 * dh * w * sn - h * w * w * c);
    return m;
  };
  return s;
}

MorisonCoefficients stokes_wang(double kc, double beta) {
  const double s = 1.0 / std::sqrt(pi * beta);
  return {3.0 * pi * pi * pi / (2.0 * kc) * (s + s * s - 0.25 * s * s * s), 2.0 + 4.0 * s + s * s * s};
}

}  // namespace karman::lbm::cases
