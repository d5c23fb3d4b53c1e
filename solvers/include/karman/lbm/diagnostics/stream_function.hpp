#pragma once
/// \file stream_function.hpp
/// Stream function of a 2D cavity flow by a Poisson solve (KokkosSparse matrix + CG).
///
/// Convention of Ghia, Ghia & Shin (1982): u = ∂ψ/∂y, v = −∂ψ/∂x, ω = ∂v/∂x − ∂u/∂y, hence
/// ∇²ψ = −ω with ψ = 0 on the four walls. In a cavity whose lid y = 1 moves in +x the primary
/// vortex turns clockwise and ψ_min < 0.

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// A local extremum of ψ located to sub-cell accuracy.
struct StreamFunctionExtremum {
  double value = 0;  ///< ψ/(U L) at (x, y), from the quadratic fits
  double x = 0;      ///< position in unit coordinates, 0 <= x <= 1
  double y = 0;      ///< position in unit coordinates, 0 <= y <= 1
};

/// What compute_stream_function returns.
struct StreamFunctionResult {
  /// ψ/(U L) at the cell centres, shape (ny, nx) like the velocity arrays.
  Kokkos::View<double**, Kokkos::LayoutRight> psi{};
  StreamFunctionExtremum minimum{};  ///< global minimum (the clockwise primary vortex)
  StreamFunctionExtremum maximum{};  ///< global maximum (the strongest counter-rotating vortex)
  int iterations = 0;                ///< CG iterations taken
  double residual = 0;               ///< final true residual ‖ω − Aψ‖₂ / ‖ω‖₂ (0 when ω = 0)
};

/// Stream function of the velocity field (ux, uy), both of shape (ny, nx) and holding the
/// velocity at the centres of the fluid cells of the unit square: cell (j, i) is centred at
/// x = (i + 0.5)/nx, y = (j + 0.5)/ny, and the walls lie half a cell outside the outermost
/// centres (half-way bounce-back). Velocities are divided by `velocity_scale` (the lid
/// velocity U, > 0), so ψ comes out in units of U L.
///
/// Method (second order in the cell size h):
///  - ω at every cell centre from central differences; in cells next to a wall, the
///    derivative of the wall-tangential velocity across the wall uses the quadratic through
///    the wall value and the two nearest centres, f' = ±(4 f_wall − 3 f_0 − f_1)/(3h). The
///    tangential wall velocity is 0 on the left, right and bottom walls and
///    `lid_velocity_scaled` (lid velocity / velocity_scale, 1 for a lid moving at U) on the
///    top wall y = 1; it enters only there, through ω of the top row of cells. Wall-normal
///    velocities are not used.
///  - −∇²ψ = ω with the 5-point Laplacian; ψ = 0 on the wall faces through the ghost value
///    −ψ_interior (the diagonal of wall-adjacent rows grows by 1/h²). The SPD matrix is a
///    KokkosSparse::CrsMatrix solved by conjugate gradients to ‖r‖₂ <= 1e-10 ‖ω‖₂, at most
///    10 (nx + ny) + 100 iterations (well above the CG bound ½ √κ ln(2/1e-10) for it).
///  - Extrema: the extreme cell, then in x and in y separately the parabola through it and its
///    two neighbours (the wall, ψ = 0 half a cell away, standing in for a missing one); its
///    vertex, clamped to the cell, is the position and the sum of the two fitted changes the
///    value. Where the neighbours do not bracket an extremum the cell centre is kept.
///
/// Throws karman::Error if the shapes differ, nx or ny < 2, velocity_scale <= 0 or not
/// finite, lid_velocity_scaled not finite, a velocity is not finite, or CG does not converge.
StreamFunctionResult compute_stream_function(Kokkos::View<const double**, Kokkos::LayoutRight> ux,
                                             Kokkos::View<const double**, Kokkos::LayoutRight> uy,
                                             double velocity_scale, double lid_velocity_scaled = 1.0);

}  // namespace karman::lbm
