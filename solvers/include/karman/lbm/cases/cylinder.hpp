#pragma once
/// \file cylinder.hpp
/// Flow around a cylinder in a channel, the DFG benchmark of Schäfer & Turek (1996): cases 2D-1
/// (Re 20, steady) and 2D-2 (Re 100, periodic) in a channel H = 0.41 by L = 2.2 with the
/// cylinder of diameter 0.1 centred at (0.2, 0.2) and a parabolic inflow of maximum U_max (mean
/// 2/3 U_max); and 3D-1Z (Re 20, steady) and 3D-2Z (Re 100, periodic) in a channel of square
/// cross-section H x H = 0.41 x 0.41 and length 2.5, the cylinder spanning it along z with its
/// axis at (0.5, 0.2), and the inflow 16 U_m y z (H - y)(H - z) / H^4 (mean 4/9 U_m). Always
/// nu = 0.001, outlet at fixed pressure, no-slip channel walls; scaled so that D voxels span the
/// diameter.
///
/// Lattice: voxel column i sits at x = i dx (dx = 0.1 / D) with the regularized velocity inlet at i
/// = 0 and the regularized pressure outlet at i = L / dx. Rows j = 1 .. round(4.1 D) are fluid, at
/// y = (j - 1/2) dx, between half-way bounce-back walls in rows 0 and ny - 1; in 3D the layers k
/// along z alike. For a grid of N levels the same channel is laid out in voxels of the finest level
/// so that its walls, inlet and outlet fill whole voxels of the coarsest, which spans c = 2^(N-1)
/// finest voxels: c wall rows below the fluid (and layers in 3D), the inlet in the first c columns
/// and the outlet in the c columns from L / dx (the planes at x = (c - 1) / 2 dx and L + (c - 1) /
/// 2 dx: the voxels' centres), and wall voxels past the outlet and above the top wall up to a whole
/// number of coarsest blocks (refined_box_multiple). The cylinder is a curved wall
/// (curved_wall.hpp): its voxels inside the circle are solid and its surface cuts their links at
/// the analytic fractions; or (`immersed`) all voxels are fluid and Lagrangian markers on the
/// circle (in 3D one ring per layer) hold it by direct-forcing immersed boundaries
/// (immersed_boundary.hpp).

#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/delta_kernel.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <array>
#include <functional>
#include <string>

namespace karman::lbm::cases {

/// The immersed-boundary cylinder (`--wall ib`): markers on a circle (in 3D one ring per layer of
/// voxels along the axis), no solid voxels.
struct ImmersedCylinder {
  bool enabled = false;
  DeltaKernel kernel = DeltaKernel::roma3;
  int forcing_iterations = 3;
  /// How far the markers sit inside the true surface, in voxels: a direct-forcing surface acts
  /// about this much further out (Breugem, J. Comput. Phys. 231, 4469 (2012): 0.3 voxel
  /// with the 3-point kernel and multi-direct forcing).
  double retraction = 0.3;
  /// Marker spacing along the circle in voxels (about one: Uhlmann 2005); in 3D the rings are
  /// one voxel apart.
  double spacing = 1.0;
  /// l of Chen et al. §4.2.2 for the markers' order (ImmersedBody::marker_block).
  int marker_block = default_marker_block;
};

/// Which benchmark case.
enum class CylinderCase {
  steady_2d1,     ///< 2D-1: U_max = 0.3, Re = 20, steady
  periodic_2d2,   ///< 2D-2: U_max = 1.5, Re = 100, periodic vortex shedding
  steady_3d1z,    ///< 3D-1Z: U_m = 0.45, Re = 20, steady
  periodic_3d2z,  ///< 3D-2Z: U_m = 2.25, Re = 100, periodic
};

/// The option name of a case: "2d-1", "2d-2", "3d-1z", "3d-2z".
const char* cylinder_case_name(CylinderCase c);

/// The case of an option name; throws karman::Error naming the accepted ones.
CylinderCase cylinder_case_from_name(const std::string& name);

/// Parameters of a cylinder run.
struct CylinderParams {
  CylinderCase benchmark = CylinderCase::steady_2d1;
  int diameter = 20;                                   ///< D: voxels across the cylinder
  double max_velocity = 0.05;                          ///< U_max of the inflow in lattice units
  WallInterpolation wall = WallInterpolation::linear;  ///< treatment of the cylinder surface
  double centre_y = 0.2;      ///< cylinder centre height (benchmark units; 0.2, slightly below the middle)
  ImmersedCylinder immersed;  ///< enabled: immersed boundaries instead of `wall`
  /// Grid levels the box is laid out for (refined_solver_factory.hpp; 1: a uniform grid): the
  /// diameter D is the finest level's, and the walls, inlet and outlet fill whole voxels of the
  /// coarsest level, as the refined grid needs (see CylinderLattice).
  int levels = 1;
};

/// Benchmark numbers of a case (Schäfer & Turek 1996 §2; tests/validation/refdata).
struct CylinderBenchmark {
  int dimension;          ///< 2 or 3
  bool steady;            ///< a steady case (2D-1, 3D-1Z) rather than a periodic one
  double channel_length;  ///< L: 2.2 in 2D, 2.5 in 3D
  double centre_x;        ///< x of the cylinder's axis: 0.2 in 2D, 0.5 in 3D
  double max_velocity;    ///< U_max of the inflow
  double mean_velocity;   ///< U_mean: 2/3 U_max in 2D, 4/9 U_max in 3D
  double reynolds;        ///< U_mean D / nu
  /// k of the fully developed flow's pressure gradient G = k rho nu U_mean / H^2: 12 between
  /// plates; 28.454 in a square duct (Shah & London 1978, f Re = 14.227 with the hydraulic
  /// diameter H).
  double friction;
};
inline constexpr double cylinder_channel_height = 0.41, cylinder_diameter = 0.1, cylinder_viscosity = 0.001;

/// Geometry, U_max, U_mean and Re of a case.
CylinderBenchmark cylinder_benchmark(CylinderCase c);

/// The lattice a set of parameters gives.
struct CylinderLattice {
  int dimension = 2;           ///< 2 or 3
  int nx = 0, ny = 0, nz = 1;  ///< box, inlet/outlet columns and wall rows (3D: wall layers) included
  double dx = 0;               ///< benchmark length of a voxel
  double dt = 0;               ///< benchmark time of a step
  double mean_velocity = 0;    ///< U_mean in lattice units
  double viscosity = 0;        ///< nu in lattice units
  double centre[2] = {0, 0};   ///< cylinder centre (3D: its axis) in voxel coordinates (x, y)
  double radius = 0;           ///< D / 2 in voxels
  int fluid_rows = 0;          ///< rows between the walls (3D: also layers along z)
  int wall_rows = 1;           ///< wall rows below the fluid (3D: also wall layers), a coarsest voxel's span
  int outlet_x = 0;            ///< the first outlet column, L / dx
  double inlet_x = 0;          ///< voxel coordinate x of the inlet plane (the inlet voxels' centre)
  /// Voxel coordinate z of the channel's middle plane, z = H / 2 (0 in 2D).
  double middle_z = 0;
  /// Length of the cylinder in voxels: 1 in 2D (forces per voxel of span), the fluid layers in 3D.
  double span = 1;
};

/// Lattice of a parameter set (no checks).
CylinderLattice cylinder_lattice(const CylinderParams& p);

/// Where a grid of p.levels levels is refined: whether it splits the block whose first finest voxel
/// is `first` and which spans `span` finest voxels, to reach `depth` finest voxels from the
/// cylinder's surface (in the x-y plane). The coarsest blocks that hold the inlet and the outlet stay whole (a jump at
/// an inlet or outlet is refused, refined_step.hpp), and so far from them that the 2:1 balance never splits them: a
/// block splits only `tile - span` or more away, room for a block of each level between it and the coarsest.
std::function<bool(const std::array<int, 3>& first, int span, int depth)> cylinder_refinement(const CylinderParams& p);

/// Checks the parameters (diameter, tau > 1/2, Mach < 0.3) and builds the setup; throws
/// karman::Error naming the value and the accepted range.
SolverSetup cylinder_setup(const CylinderParams& p, const Variant& variant);

/// A cylinder oscillating in fluid at rest, x(t) = -A cos(omega t), held by immersed boundaries
/// in a periodic square box (`karman cylinder --case oscillating`): the in-line force against
/// Wang's small-amplitude analysis (stokes_wang()). KC = U_m T / D (Keulegan-Carpenter number),
/// beta = D^2 / (nu T) (Stokes number), Re = U_m D / nu = KC beta.
struct OscillatingCylinderParams {
  int diameter = 20;  ///< D: voxels across the cylinder
  /// Keulegan-Carpenter number: Wang's analysis is linear in the amplitude, for KC << 1 (at KC = 1
  /// the measured drag lies 5 to 10 % above it, docs/validation.md).
  double kc = 0.25;
  double beta = 50.0;  ///< Stokes number
  /// U_m, the cylinder's velocity amplitude, lattice units. It sets the period T = KC D / U_m
  /// against the box's acoustic period 16 D / c_s: at U_m = 0.02 KC, T is 1.8 of it, off its
  /// resonance (at 0.04 KC the forcing sits near it and the box's sound beats in the force).
  double max_velocity = 0.005;
  int box_diameters = 16;     ///< the box is this many D across
  ImmersedCylinder immersed;  ///< kernel, iterations, retraction (enabled is implied)
};

/// The lattice of an oscillating-cylinder run.
struct OscillatingCylinderLattice {
  int n = 0;                  ///< box side in voxels
  double period = 0;          ///< T in time steps
  double amplitude = 0;       ///< A in voxels
  double omega = 0;           ///< 2 pi / T
  double viscosity = 0;       ///< nu
  double centre[2] = {0, 0};  ///< mean position of the centre, voxel coordinates
};

/// Lattice of a parameter set (no checks).
OscillatingCylinderLattice oscillating_cylinder_lattice(const OscillatingCylinderParams& p);

/// Checks the parameters and builds the setup (fluid at rest, periodic box, the moving body);
/// throws karman::Error naming the value and the accepted range.
SolverSetup oscillating_cylinder_setup(const OscillatingCylinderParams& p, const Variant& variant);

/// Morison coefficients of the in-line force F = -C_a rho V dU/dt - 1/2 rho D C_d |U| U on a
/// cylinder of velocity U = U_m sin(omega t) in fluid at rest (per unit length, V = pi D^2 / 4,
/// C_a = C_m - 1).
struct MorisonCoefficients {
  double drag = 0;     ///< C_d
  double inertia = 0;  ///< C_m
};

/// Wang's asymptotic coefficients for beta >> 1, KC << 1 (Wang, J. Fluid Mech. 32, 55 (1968), as
/// quoted by Sarpkaya, J. Fluid Mech. 165, 61 (1986), §1): with s = (pi beta)^(-1/2),
/// C_d = 3 pi^3 / (2 KC) (s + s^2 - s^3 / 4), C_m = 2 + 4 s + s^3 (2: potential flow), for the
/// cylinder at rest in oscillating flow; moving in fluid at rest it feels C_a = C_m - 1.
MorisonCoefficients stokes_wang(double kc, double beta);

}  // namespace karman::lbm::cases
