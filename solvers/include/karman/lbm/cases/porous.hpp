#pragma once
/// \file porous.hpp
/// Flow through a porous sample (a voxel image: random sphere pack, simple-cubic array, or a
/// user's micro-CT image) driven along x by a body force or by a density (pressure) difference
/// between the inlet plane x = 0 and the outlet plane x = nx - 1, and what Darcy's law makes of it:
/// porosity, superficial velocity and permeability; for the simple-cubic array the
/// dimensionless drag of Zick & Homsy (1982).

#include <karman/core/geometry/voxel_image.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <array>
#include <memory>

namespace karman::lbm::cases {

/// What drives the flow along x.
enum class PorousDrive {
  body_force,  ///< a Guo body force g on a sample periodic along x
  pressure     ///< regularized pressure boundaries (Latt et al. 2008) on the planes x = 0 and x = nx - 1
};

/// Largest density difference a pressure-driven run accepts: the lattice fluid is weakly
/// compressible, and Darcy's law with a constant density holds only while rho_in - rho_out
/// (the relative density variation across the sample) stays small.
inline constexpr double max_delta_rho = 0.1;

/// Physical parameters of a porous run, in lattice units.
struct PorousParams {
  double tau = 1.0;     ///< relaxation time of the viscous moments: nu = (tau - 1/2) / 3
  double force = 1e-6;  ///< body force per unit mass g along x (rho0 = 1, so also per unit volume)
  /// Periodic axes. A non-periodic side is a wall (half-way bounce-back) on the box's face.
  /// A pressure drive makes x non-periodic whatever this says.
  std::array<bool, 3> periodic{true, true, true};
  PorousDrive drive = PorousDrive::body_force;  ///< body force or pressure difference
  /// Pressure drive: rho_in - rho_out in (0, max_delta_rho]; the inlet holds 1 + delta_rho / 2,
  /// the outlet 1 - delta_rho / 2, so the mean density stays 1.
  double delta_rho = 0;
};

/// Name of a drive as the command line spells it.
const char* name(PorousDrive drive);

/// The density difference that drives the same flow as the body force `force` through a sample
/// of `nx` voxels along x: cs^2 delta_rho / (nx - 1) = rho0 g, the inlet and outlet nodes being
/// nx - 1 lattice spacings apart.
double equivalent_delta_rho(double force, int nx);

/// Kinematic viscosity nu = (tau - 1/2) / 3.
double viscosity(const PorousParams& p);

/// Checks the parameters (tau in (1/2, 100], a finite force that is not zero for a body-force
/// drive, delta_rho in (0, max_delta_rho] for a pressure drive, extents the block-sparse grid
/// takes: periodic extents multiples of 4) and the sample (some fluid, a fluid path along x:
/// geometry::require_fluid_path), then builds the setup: solid voxels are walls of id 0; the
/// Guo body force points along x, or the fluid voxels of the planes x = 0 and x = nx - 1 are
/// pressure boundaries of ids 1 (inlet) and 2 (outlet) and the density starts linear between
/// them. Throws karman::Error naming the value and what is accepted; nothing is allocated on the
/// device.
SolverSetup porous_setup(std::shared_ptr<const geometry::VoxelImage> image, const PorousParams& p,
                         const Variant& variant);

/// Darcy figures of a steady flow through a sample.
struct DarcyFlow {
  double porosity = 0;               ///< fluid voxels over all voxels
  double superficial_velocity = 0;   ///< U_s: mean u_x over the whole sample, solid voxels counting zero
  double interstitial_velocity = 0;  ///< mean u_x over the fluid voxels: U_s / porosity
  double permeability = 0;           ///< k = nu U_s / g, in voxel edge lengths squared
};

/// The Darcy figures from `sum_ux`, the sum of u_x over every voxel of the sample (solid ones
/// hold 0), of a sample of `voxels` voxels of which `fluid_voxels` are fluid. Darcy with a
/// body force g per unit mass: U_s = k g / nu, as with a pressure gradient G = rho g, since
/// p = -G x + (periodic) turns the body-force equations into the pressure-driven ones.
/// For a pressure drive, use the overload with the measured gradient.
DarcyFlow darcy_flow(double sum_ux, double voxels, double fluid_voxels, const PorousParams& p);

/// The Darcy figures of a flow driven by the mean pressure gradient G = -dp/dx (lattice units,
/// p = cs^2 rho): k = nu rho0 U_s / G with rho0 = 1, the body-force formula with g = G / rho0.
DarcyFlow darcy_flow(double sum_ux, double voxels, double fluid_voxels, const PorousParams& p,
                     double pressure_gradient);

/// The mean pressure gradient of a pressure-driven run, measured.
struct PressureGradient {
  double rho_inlet = 0;   ///< mean density over the fluid voxels of the plane x = 0
  double rho_outlet = 0;  ///< mean density over the fluid voxels of the plane x = nx - 1
  double gradient = 0;    ///< G = -dp/dx = cs^2 (rho_inlet - rho_outlet) / (nx - 1)
};

/// Measures the mean pressure gradient from `rho(x, y, z)` (the density of a voxel of the box)
/// over the fluid voxels of `image`'s first and last x planes: those planes' nodes are the
/// pressure boundaries, nx - 1 lattice spacings apart, the length Darcy's law divides by.
template <class Rho>
PressureGradient measure_pressure_gradient(const geometry::VoxelImage& image, const Rho& rho) {
  const Extents& e = image.extents;
  double sum[2] = {0, 0}, count[2] = {0, 0};
  for (int side = 0; side < 2; ++side) {
    const int x = side == 0 ? 0 : e.nx - 1;
    for (int z = 0; z < e.nz; ++z)
      for (int y = 0; y < e.ny; ++y)
        if (!image.is_solid(x, y, z)) {
          sum[side] += rho(x, y, z);
          count[side] += 1;
        }
  }
  PressureGradient g;
  g.rho_inlet = count[0] > 0 ? sum[0] / count[0] : 0.0;
  g.rho_outlet = count[1] > 0 ? sum[1] / count[1] : 0.0;
  g.gradient = (g.rho_inlet - g.rho_outlet) / (3.0 * (e.nx - 1));
  return g;
}

/// Sum of u_x over the voxels of `m` (solid and inactive voxels hold 0), on the device.
double velocity_sum(const MomentFields& m);

/// Radius of the sphere of solid fraction `solid_fraction` in a cubic cell of edge `cell`:
/// the volume-equivalent radius a = cell (3 c / 4 pi)^(1/3).
double sphere_radius(double cell, double solid_fraction);

/// Dimensionless drag K = F / (6 pi mu a U_s) of a simple-cubic array of cell edge `cell`
/// (Zick & Homsy 1982, Sangani & Acrivos 1982). F is the force on one sphere in the
/// pressure-driven problem, which balances the mean pressure gradient over the whole cell:
/// F = G cell^3 = rho g cell^3 (the force of the fluid on the sphere in the body-force problem
/// is rho g times the fluid volume; the difference is the buoyancy of the mean pressure
/// gradient, G times the sphere's volume). So K = cell^3 / (6 pi a k).
double simple_cubic_drag(const DarcyFlow& flow, double cell, double solid_fraction);

/// The Sangani & Acrivos (1982) series for the simple-cubic array's K in chi = c^(1/3):
/// 1 / (1 - 1.7601 chi + chi^3 - 1.5593 chi^6 + 3.9799 chi^8 - 3.0734 chi^10), good to about a
/// percent up to c = 0.2 and used to cross-check the tabulated values.
double sangani_acrivos_drag(double solid_fraction);

}  // namespace karman::lbm::cases
