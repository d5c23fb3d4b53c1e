#pragma once
/// \file taylor_green.hpp
/// Taylor-Green vortices on a periodic box.
/// 2D (N x N): u = U0 (-cos kx sin ky, sin kx cos ky), k = 2 pi / N, decaying as
/// exp(-2 nu k^2 t), its pressure field set consistently; Re = U0 N / nu.
/// 3D (N^3, Brachet et al. 1983, the High-Order CFD Workshop's case C3.5): with L = N / 2 pi,
/// u = U0 sin(x/L) cos(y/L) cos(z/L), v = -U0 cos(x/L) sin(y/L) cos(z/L), w = 0 and
/// p = p0 + rho0 U0^2 / 16 (cos 2x/L + cos 2y/L)(cos 2z/L + 2); Re = U0 L / nu. It breaks down
/// into turbulence, its kinetic-energy dissipation rate peaking near t = 9 L / U0.

#include <karman/lbm/solver_setup.hpp>

namespace karman::lbm::cases {

/// Parameters of the vortex.
struct TaylorGreenParams {
  int dim = 2;             ///< 2 or 3
  int n = 64;              ///< voxels per side
  double reynolds = 100;   ///< Re = U0 N / nu (2D), U0 L / nu with L = N / 2 pi (3D)
  double velocity = 0.05;  ///< U0
};

/// Kinematic viscosity from Re (see TaylorGreenParams::reynolds).
double viscosity(const TaylorGreenParams& p);
/// Analytic decay rate of the 2D vortex's velocity amplitude, 2 nu k^2.
double decay_rate(const TaylorGreenParams& p);
/// The 3D vortex's convective time L / U0, in time steps.
double convective_time(const TaylorGreenParams& p);
/// Checks the parameters and builds the setup.
SolverSetup taylor_green_setup(const TaylorGreenParams& p, const Variant& variant);

}  // namespace karman::lbm::cases
