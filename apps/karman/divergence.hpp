#pragma once
/// \file divergence.hpp
/// A diverged run found at a check: the first voxel whose moments are not finite or out of the
/// range a stable flow keeps, in every precision (16-bit storage included), and what the user can
/// change. And the testing aid that puts a NaN into the flow.

#include <karman/comm/ranks.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <string>

namespace karman::app {

/// Densities outside [0, this] count as diverged. Walls hold 0; fluid stays within a few per cent
/// of 1 at Mach < 0.3 and within max_delta_rho of it under a pressure drive. The bound must be
/// tight because FP16C has no NaN or infinity: a NaN or an overflow saturates the stored
/// deviation f_i - w_i at about +-2, so a voxel that pulls one such population reads a density
/// near 3 (or -1), not a NaN.
constexpr double max_sane_density = 2.0;

/// Velocity components beyond this, the lattice speed, count as diverged: non-negative
/// populations give |u_a| = |sum c_ia f_i| / sum f_i <= 1, and saturated FP16C deviations of both
/// signs can cancel in the density but not in the momentum.
constexpr double max_sane_velocity = 1.0;

/// Where the divergence check found a bad value, as every rank learns it.
struct Divergence {
  bool found = false;
  int x = 0, y = 0, z = 0;  ///< global voxel
  double rho = 0, u[3] = {0, 0, 0};
};

/// Collective: the first owned voxel (in global order) whose density or velocity is not finite,
/// whose density lies outside [0, max_sane_density] or whose velocity exceeds max_sane_velocity
/// along an axis. One reduction kernel over the moments (in `box`'s order) the check has computed
/// anyway.
Divergence find_divergence(const comm::Ranks& ranks, const lbm::MomentFields& m, const lbm::OwnedBox& box);

/// What a diverged dense run can change: the flow and resolution always, and a collision more
/// robust than its own where the lattice defines one and the run could use it (`moment_collisions`:
/// MRT and CM run on slabs without a per-voxel force field, lbm/solver_dispatch.hpp).
std::string stability_advice(const lbm::Variant& variant, bool moment_collisions);

/// Testing aid (--inject-nan): NaN into every population of the box's centre voxel, through the
/// checkpoint copy of the populations so that every layout, pattern and grid is reached alike.
/// The stored word is the precision's encoding of NaN: FP16C has none and saturates, which the
/// run reports as a density out of range.
void inject_nan(lbm::FlowSolver& solver, const std::string& precision);

}  // namespace karman::app
