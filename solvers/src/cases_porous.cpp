// The porous case: a voxel image as bounce-back walls with a body force along x or a pressure
// difference between the inlet and outlet planes, and Darcy's law applied to the steady flow.
#include <karman/core/error.hpp>
#include <karman/core/geometry/fluid_path.hpp>
#include <karman/lbm/cases/porous.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace karman::lbm::cases {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr const char* where = "karman porous";

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// Above this tau the lattice viscosity is too large to mean anything (the other cases' bound).
constexpr double max_tau = 100.0;

/// Block edge of the 3D block-sparse grid: a periodic extent must hold whole blocks.
constexpr int block_edge = 4;

}  // namespace

double viscosity(const PorousParams& p) { return (p.tau - 0.5) / 3.0; }

const char* name(PorousDrive drive) { return drive == PorousDrive::pressure ? "pressure" : "body-force"; }

double equivalent_delta_rho(double force, int nx) { return 3.0 * force * (nx - 1); }

SolverSetup porous_setup(std::shared_ptr<const geometry::VoxelImage> image, const PorousParams& p,
                         const Variant& variant) {
  if (!image) throw Error(std::string(where) + ": no sample image");
  // tau -> 1/2 is the inviscid limit where the collision loses stability (as the other cases).
  if (!(p.tau >= 0.5 + 1e-3 && p.tau <= max_tau)) {
    throw Error(std::string(where) + ": --tau " + fmt(p.tau) + " out of range [0.501, " + fmt(max_tau) + "]");
  }
  const bool pressure = p.drive == PorousDrive::pressure;
  if (!pressure && (!std::isfinite(p.force) || p.force == 0.0)) {
    throw Error(std::string(where) + ": --body-force " + fmt(p.force) + " must be a finite number other than 0");
  }
  if (pressure && !(p.delta_rho > 0 && p.delta_rho <= max_delta_rho)) {
    throw Error(std::string(where) + ": --delta-rho " + fmt(p.delta_rho) + " out of range (0, " + fmt(max_delta_rho) +
                "] (rho_in - rho_out; the fluid is weakly compressible)");
  }
  std::array<bool, 3> periodic = p.periodic;
  if (pressure) periodic[0] = false;
  const Extents& e = image->extents;
  if (e.dimension() != 3) {
    throw Error(std::string(where) + ": the sample is " + std::to_string(e.nx) + "x" + std::to_string(e.ny) + "x" +
                std::to_string(e.nz) + "; a 3D image (nz >= 2) is needed");
  }
  // An inlet and an outlet plane with a sample between them.
  if (pressure && e.nx < 3) {
    throw Error(std::string(where) + ": the sample's x extent " + std::to_string(e.nx) +
                " is too short for a pressure drive (at least 3: inlet, sample, outlet)");
  }
  const int extent[3] = {e.nx, e.ny, e.nz};
  for (int a = 0; a < 3; ++a) {
    if (periodic[a] && extent[a] % block_edge != 0) {
      throw Error(std::string(where) + ": the sample's " + "xyz"[a] + " extent " + std::to_string(extent[a]) +
                  " is not a multiple of " + std::to_string(block_edge) +
                  ", which a periodic side of the block-sparse grid needs; crop or pad the image" +
                  (a == 0 ? "" : ", or give --sides walls"));
    }
  }
  // All-solid samples and samples without a connected pore space along the flow are refused
  // here, before the solver allocates anything.
  geometry::require_fluid_path(*image, 0, periodic, where);
  // Without a solid voxel or a wall nothing resists the flow: it accelerates without bound, and
  // the permeability it would give is infinite.
  if (periodic[1] && periodic[2] && image->porosity() >= 1.0) {
    throw Error(std::string(where) +
                ": the sample holds no solid voxel and its y and z sides are periodic, so nothing resists the flow "
                "(its permeability is infinite); give a sample with solid, or --sides walls for a duct");
  }

  SolverSetup s;
  s.variant = variant;
  s.global = e;
  s.periodic = periodic;
  s.relaxation.omega = 1.0 / p.tau;
  if (!pressure) {
    s.relaxation.force[0] = p.force;
    s.geometry = [image](int x, int y, int z) {
      return image->is_solid(x, y, z) ? CellSpec{CellKind::solid, 0} : CellSpec{};
    };
    return s;
  }
  // Ids 1 and 2: inlet (inward normal +x) and outlet (inward normal -x) at densities that keep
  // the mean at 1. Their solid voxels stay walls: the sample's own faces bound the pore space.
  constexpr int inlet = 1, outlet = 2;
  const double drho = p.delta_rho;
  s.boundaries.values[inlet] = {1.0 + 0.5 * drho, {0, 0, 0}, 0, +1};
  s.boundaries.values[outlet] = {1.0 - 0.5 * drho, {0, 0, 0}, 0, -1};
  const int last = e.nx - 1;
  s.geometry = [image, last](int x, int y, int z) {
    if (image->is_solid(x, y, z)) return CellSpec{CellKind::solid, 0};
    if (x == 0) return CellSpec{CellKind::pressure_boundary, inlet};
    if (x == last) return CellSpec{CellKind::pressure_boundary, outlet};
    return CellSpec{};
  };
  // The linear density of Darcy flow from the start: only the velocity has to develop.
  s.initial = [drho, last](int x, int, int) {
    FlowState st;
    st.rho = 1.0 + drho * (0.5 - double(x) / last);
    return st;
  };
  return s;
}

DarcyFlow darcy_flow(double sum_ux, double voxels, double fluid_voxels, const PorousParams& p) {
  return darcy_flow(sum_ux, voxels, fluid_voxels, p, p.force);
}

DarcyFlow darcy_flow(double sum_ux, double voxels, double fluid_voxels, const PorousParams& p,
                     double pressure_gradient) {
  DarcyFlow d;
  d.porosity = fluid_voxels / voxels;
  d.superficial_velocity = sum_ux / voxels;
  d.interstitial_velocity = fluid_voxels > 0 ? sum_ux / fluid_voxels : 0.0;
  d.permeability = viscosity(p) * d.superficial_velocity / pressure_gradient;
  return d;
}

double velocity_sum(const MomentFields& m) {
  const auto u = m.u;
  double sum = 0;
  Kokkos::parallel_reduce(
      "karman::porous_velocity_sum", Kokkos::RangePolicy<>(0, u.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i, double& s) { s += u(i, 0); }, sum);
  return sum;
}

double sphere_radius(double cell, double solid_fraction) { return cell * std::cbrt(3.0 * solid_fraction / (4.0 * pi)); }

double simple_cubic_drag(const DarcyFlow& flow, double cell, double solid_fraction) {
  return cell * cell * cell / (6.0 * pi * sphere_radius(cell, solid_fraction) * flow.permeability);
}

double sangani_acrivos_drag(double solid_fraction) {
  const double chi = std::cbrt(solid_fraction);
  const double chi3 = chi * chi * chi, chi6 = chi3 * chi3;
  return 1.0 / (1.0 - 1.7601 * chi + chi3 - 1.5593 * chi6 + 3.9799 * chi6 * chi * chi - 3.0734 * chi6 * chi3 * chi);
}

}  // namespace karman::lbm::cases
