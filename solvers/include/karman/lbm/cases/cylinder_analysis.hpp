#pragma once
/// \file cylinder_analysis.hpp
/// The figures of the cylinder benchmarks from what a run records: drag and lift coefficients
/// from the force history, the pressure difference across the cylinder and the recirculation
/// length from the final fields, the Strouhal number and force maxima of the periodic cases
/// (Schäfer & Turek 1996, §2.2), and the Morison coefficients of the oscillating cylinder
/// against Wang's analysis. Apart from the command line, so that each is tested on histories
/// and fields made for it.

#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/global_fields.hpp>

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace karman::lbm::cases {

/// Force samples of a run, one row per sample: the step, the time (benchmark time for the
/// benchmarks, steps for the oscillating cylinder) and the in-line and cross-stream force
/// (coefficients for the benchmarks, lattice forces for the oscillating cylinder).
struct ForceHistory {
  std::vector<double> step, time, drag, lift;
};

/// Whether the periodic cases' last quarter shows shedding.
enum class Shedding {
  periodic,   ///< two lift maxima or more and a drag maximum: St and the maxima are measured
  settling,   ///< the drag's swing shrinks between the last eighths: the wake settles
  not_found,  ///< too few maxima in the last quarter (run longer)
};

/// The benchmark's figures of one run of 2D-1, 2D-2, 3D-1Z or 3D-2Z; empty where a figure is
/// not defined for the case or the run is too short to give it.
struct CylinderFigures {
  /// c_D and c_L: steady cases, means over the last quarter of the samples (8 samples or more);
  /// a settling wake, means over the last eighth; otherwise the last sample.
  std::optional<double> drag, lift;
  /// Pressure difference between the front and back of the cylinder on the centre line, in the
  /// benchmark's units, extrapolated to the surface from the fluid side.
  double pressure_difference = 0;
  /// L_a, in the benchmark's units: from the back of the cylinder to the end of the wake bubble
  /// on the centre line; 2D steady cases only (Schäfer & Turek define none for 3D-1Z), empty
  /// when there is no bubble.
  std::optional<double> recirculation_length;
  /// Steady cases with 8 samples or more: the time from which the means run, and the relative
  /// change of c_D's mean between the last two eighths (a wake still settling shows it).
  std::optional<double> averaged_from_time, drag_drift;
  /// Periodic cases: the drag's swing (max - min) over the last eighth divided by that over the
  /// eighth before (0 below 8 samples).
  double swing_ratio = 0;
  Shedding shedding = Shedding::not_found;
  /// Periodic shedding: c_D,max, c_L,max, St = D / (T U_mean) and the lift periods measured.
  std::optional<double> drag_max, lift_max, strouhal;
  std::size_t periods = 0;
};

/// Voxels next to the cylinder's surface that its treatment disturbs and the readings of the
/// fields leave out: none for walls of solid voxels; immersed boundaries force the voxels within
/// half the delta kernel's support of their markers, which sit `retraction` inside the surface.
double surface_gap(const CylinderParams& p);

/// Density on the centre line (in 3D at the channel's middle z = H / 2, bilinear between the
/// voxel rows and layers straddling it) at voxel coordinate x, extrapolated quadratically from
/// the first three fluid voxels met walking from `gap` voxels past x in direction `dir`.
double surface_density(const GlobalFields& g, const CylinderLattice& l, double x, int dir, double gap);

/// Recirculation length in voxels: from the back of the cylinder to where u_x on the centre line
/// turns positive again (linear between voxels), looked for from `gap` voxels behind the
/// surface; empty when u_x is positive there already (no wake bubble) or never turns.
std::optional<double> recirculation_voxels(const GlobalFields& g, const CylinderLattice& l, double gap);

/// Local maxima (time, value) of y(t) from sample `from` on, each refined by the parabola
/// through it and its two neighbours.
std::vector<std::pair<double, double>> maxima(const std::vector<double>& t, const std::vector<double>& y,
                                              std::size_t from);

/// The figures of a benchmark run with parameters `p` from its force coefficients and its final
/// fields.
CylinderFigures analyse_cylinder(const CylinderParams& p, const ForceHistory& h, const GlobalFields& g);

/// The Morison coefficients of an oscillating-cylinder run (velocity U_m sin(omega t)) fitted
/// over the second half of its in-line force history (time in steps): the force's sine part is
/// the drag's fundamental, -1/2 rho D C_d U_m^2 8 / (3 pi), its cosine part the added mass's,
/// -C_a rho (pi D^2 / 4) U_m omega.
struct MorisonFit {
  MorisonCoefficients coefficients;  ///< C_d and C_m = 1 + C_a
  std::size_t from = 0;              ///< first sample of the fit
};
MorisonFit morison_fit(const OscillatingCylinderParams& p, const OscillatingCylinderLattice& l, const ForceHistory& h);

}  // namespace karman::lbm::cases
