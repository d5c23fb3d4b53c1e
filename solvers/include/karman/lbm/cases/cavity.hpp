#pragma once
/// \file cavity.hpp
/// Lid-driven cavity (Ghia, Ghia, Shin 1982; Meneghin & Mahmoud Appendix A): N fluid voxels per side
/// inside a one-voxel wall ring, the lid (top y wall) moving along +x. Half-way bounce-back
/// puts the walls half a voxel outside the outermost fluid voxels, so the cavity is N wide.

#include <karman/lbm/solver_setup.hpp>

namespace karman::lbm::cases {

/// Physical parameters of a cavity.
struct CavityParams {
  int dim = 2;                ///< 2 or 3
  int n = 128;                ///< fluid voxels per side
  double reynolds = 100;      ///< Re = U N / nu
  double lid_velocity = 0.1;  ///< U in lattice units
};

/// Kinematic viscosity nu = U N / Re.
double viscosity(const CavityParams& p);

/// Checks the parameters (sizes, tau > 1/2, Mach < 0.3) and builds the setup; throws
/// karman::Error with the numbers and a hint.
SolverSetup cavity_setup(const CavityParams& p, const Variant& variant);

}  // namespace karman::lbm::cases
