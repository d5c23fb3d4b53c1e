#pragma once
/// \file porous.hpp
/// Flow through a porous sample (a voxel image: random sphere pack, simple-cubic array, or a
/// user's micro-CT image) driven by a body force along x, and what Darcy's law makes of it:
/// porosity, superficial velocity and permeability; for the simple-cubic array the
/// dimensionless drag of Zick & Homsy (1982).

#include <karman/core/geometry/voxel_image.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <array>
#include <memory>

namespace karman::lbm::cases {

/// Physical parameters of a porous run, in lattice units.
struct PorousParams {
  double tau = 1.0;     ///< relaxation time of the viscous moments: nu = (tau - 1/2) / 3
  double force = 1e-6;  ///< body force per unit mass g along x (rho0 = 1, so also per unit volume)
  /// Periodic axes. A non-periodic side is a wall (half-way bounce-back) on the box's face.
  std::array<bool, 3> periodic{true, true, true};
};

/// Kinematic viscosity nu = (tau - 1/2) / 3.
double viscosity(const PorousParams& p);

/// Checks the parameters (tau in (1/2, 100], a finite force that is not zero, extents the
/// block-sparse grid takes: periodic extents multiples of 4) and the sample (some fluid, a fluid
/// path along x: geometry::require_fluid_path), then builds the setup: solid voxels are walls
/// of id 0, the Guo body force points along x. Throws karman::Error naming the value and what is
/// accepted; nothing is allocated on the device.
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
DarcyFlow darcy_flow(double sum_ux, double voxels, double fluid_voxels, const PorousParams& p);

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
