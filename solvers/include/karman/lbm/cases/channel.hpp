#pragma once
/// \file channel.hpp
/// Plane Poiseuille channel between walls at y (H fluid voxels across), driven either by a
/// body force along x with periodic ends (Guo forcing) or by a pressure drop between a
/// regularized pressure inlet and outlet (Latt et al. 2008).

#include <karman/lbm/solver_setup.hpp>

namespace karman::lbm::cases {

/// How the flow is driven.
enum class ChannelDrive { body_force, pressure_drop };

/// Physical parameters of a channel.
struct ChannelParams {
  int dim = 2;                 ///< 2 or 3 (3D: periodic along z)
  int height = 32;             ///< H: fluid voxels across the channel
  int length = 64;             ///< voxels along x
  int depth = 8;               ///< voxels along z in 3D
  double reynolds = 10;        ///< Re = U_max H / nu
  double max_velocity = 0.05;  ///< U_max of the analytic profile
  ChannelDrive drive = ChannelDrive::body_force;
};

/// Kinematic viscosity nu = U_max H / Re.
double viscosity(const ChannelParams& p);

/// Analytic velocity at fluid row j (1..H): U_max 4 y (H - y) / H^2 with y = j - 1/2.
double poiseuille_velocity(const ChannelParams& p, int j);

/// Checks the parameters and builds the setup.
SolverSetup channel_setup(const ChannelParams& p, const Variant& variant);

}  // namespace karman::lbm::cases
