#pragma once
/// \file immersed_body.hpp
/// What a case says about a body the immersed-boundary method (immersed_boundary.hpp) holds in
/// the flow: its markers, the delta kernel, the forcing iterations, and a prescribed rigid
/// motion (at rest, translating or oscillating).

#include <karman/lbm/delta_kernel.hpp>
#include <karman/lbm/lagrangian_markers.hpp>

#include <functional>

namespace karman::lbm {

/// Where a rigid body is at a time, relative to its markers' reference positions, and how it
/// moves (lattice units: voxels and time steps).
struct RigidMotion {
  double displacement[3] = {0, 0, 0};
  double velocity[3] = {0, 0, 0};
  double acceleration[3] = {0, 0, 0};
};

/// A rigid body held by direct-forcing immersed boundaries.
struct ImmersedBody {
  MarkerSet markers;  ///< empty: no body
  DeltaKernel kernel = DeltaKernel::roma3;
  /// Forcing iterations per step: 1 is Uhlmann's (2005) direct forcing; more is the multi-direct
  /// forcing of Luo, Wang, Fan & Cen (2007), which removes the slip that the overlap of
  /// neighbouring markers' kernels leaves after one iteration.
  int forcing_iterations = 1;
  /// Volume (area in 2D) of the body in voxels: the fluid inside it moves with the body, and its
  /// inertia is part of the force on the body (Uhlmann 2005).
  double volume = 0;
  /// l of Chen et al. §4.2.2: the markers' threads follow blocks of l^3 voxels in x-y-z order,
  /// Morton order within a block (marker_order); 0: Morton order over the whole box.
  int marker_block = default_marker_block;
  /// The motion at time t (time steps); empty: at rest.
  std::function<RigidMotion(double t)> motion;

  bool empty() const { return markers.size() == 0; }
};

}  // namespace karman::lbm
