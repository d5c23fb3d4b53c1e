#pragma once
/// \file taylor_green.hpp
/// 2D Taylor-Green vortex on a periodic N x N box: u = U0 (-cos kx sin ky, sin kx cos ky),
/// k = 2 pi / N, decaying as exp(-2 nu k^2 t) (and its pressure field set consistently).

#include <karman/lbm/solver_setup.hpp>

namespace karman::lbm::cases {

/// Parameters of the vortex.
struct TaylorGreenParams {
  int n = 64;              ///< voxels per side
  double reynolds = 100;   ///< Re = U0 N / nu
  double velocity = 0.05;  ///< U0
};

/// Kinematic viscosity nu = U0 N / Re.
double viscosity(const TaylorGreenParams& p);
/// Analytic decay rate of the velocity amplitude, 2 nu k^2.
double decay_rate(const TaylorGreenParams& p);
/// Checks the parameters and builds the setup.
SolverSetup taylor_green_setup(const TaylorGreenParams& p, const Variant& variant);

}  // namespace karman::lbm::cases
