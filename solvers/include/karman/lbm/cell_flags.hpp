#pragma once
/// \file cell_flags.hpp
/// One 32-bit word per voxel says what it is and which of its populations cannot be pulled
/// from a fluid neighbour, so the fused kernel reads one word instead of Q neighbour flags:
///   bits 0..26  bit i set: the source voxel x - c_i is not fluid (wall, or outside the
///               domain behind an inlet/outlet): population i is bounced back (or rebuilt)
///   bits 27..28 kind: fluid, solid, velocity boundary, pressure boundary
///   bits 29..31 boundary id: index into the BoundaryTable (wall velocity, or the prescribed
///               density/velocity of an inlet/outlet)

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace karman::lbm {

/// What a voxel is.
enum class CellKind : std::uint32_t {
  fluid = 0,              ///< ordinary fluid voxel
  solid = 1,              ///< wall voxel: never updated; its id names its wall velocity
  velocity_boundary = 2,  ///< fluid voxel with prescribed velocity (regularized, Latt et al. 2008)
  pressure_boundary = 3,  ///< fluid voxel with prescribed density (regularized, Latt et al. 2008)
};

/// A voxel's flag word.
using flag_t = std::uint32_t;

/// Largest number of distinct boundaries (walls, inlets, outlets) of one case.
inline constexpr int max_boundaries = 8;

namespace flags {
inline constexpr flag_t mask_bits = (flag_t(1) << 27) - 1;
inline constexpr int kind_shift = 27;
inline constexpr int id_shift = 29;

/// Flag word from its parts.
KOKKOS_INLINE_FUNCTION constexpr flag_t make(CellKind kind, int id, flag_t mask) {
  return (mask & mask_bits) | (static_cast<flag_t>(kind) << kind_shift) | (flag_t(id) << id_shift);
}
/// Kind of a voxel.
KOKKOS_INLINE_FUNCTION constexpr CellKind kind(flag_t f) { return static_cast<CellKind>((f >> kind_shift) & 3u); }
/// Boundary id of a voxel.
KOKKOS_INLINE_FUNCTION constexpr int id(flag_t f) { return int(f >> id_shift); }
/// Non-fluid-source mask.
KOKKOS_INLINE_FUNCTION constexpr flag_t mask(flag_t f) { return f & mask_bits; }
/// True when population i's source voxel is not fluid.
KOKKOS_INLINE_FUNCTION constexpr bool blocked(flag_t f, int i) { return (f >> i) & 1u; }
}  // namespace flags

/// Prescribed values of one boundary id: a wall's velocity, or an inlet/outlet's density or
/// velocity and its inward normal. A velocity boundary's u may vary as a product of parabolas
/// across up to two axes (a Poiseuille inflow: one; a duct's, as in Schäfer & Turek's 3D cases:
/// two): u(s) = u prod_k 4 (s_k - lo_k)(hi_k - s_k) / (hi_k - lo_k)^2 at the global voxel
/// coordinate s_k along `profile_axis[k]`, so u is the profile's maximum.
struct BoundaryValue {
  double rho = 1.0;                   ///< density (pressure boundaries)
  double u[3] = {0.0, 0.0, 0.0};      ///< velocity (walls and velocity boundaries); a profile's maximum
  int normal_axis = 0;                ///< axis of the inward normal (inlet/outlet)
  int normal_sign = 1;                ///< +1 or -1: direction of the inward normal along that axis
  int profile_axis[2] = {-1, -1};     ///< axes across which u is a parabola; -1: none (uniform)
  double profile_lo[2] = {0.0, 0.0};  ///< global voxel coordinate where each parabola vanishes (a wall)
  double profile_hi[2] = {0.0, 0.0};  ///< the other zero of each parabola

  /// Whether u varies across the boundary (profile() is not 1 everywhere).
  KOKKOS_INLINE_FUNCTION bool profiled() const { return profile_axis[0] >= 0 || profile_axis[1] >= 0; }

  /// Factor of u at the voxel of global coordinates `s` (1 when uniform).
  KOKKOS_INLINE_FUNCTION double profile(const double (&s)[3]) const {
    double factor = 1.0;
    for (int k = 0; k < 2; ++k) {
      if (profile_axis[k] < 0) continue;
      const double at = s[profile_axis[k]], width = profile_hi[k] - profile_lo[k];
      factor *= 4.0 * (at - profile_lo[k]) * (profile_hi[k] - at) / (width * width);
    }
    return factor;
  }
};

/// All boundary values of a case, passed by value into kernels.
struct BoundaryTable {
  BoundaryValue values[max_boundaries];
  KOKKOS_INLINE_FUNCTION const BoundaryValue& operator[](int id) const { return values[id]; }
};

}  // namespace karman::lbm
