#pragma once
/// \file cell_flags.hpp
/// One 32-bit word per voxel says what it is and which of its populations cannot be pulled
/// from a fluid neighbour, so the fused kernel reads one word instead of Q neighbour flags:
///   bits 0..26  bit i set: the source voxel x - c_i is not fluid (wall, or outside the
///               domain behind an inlet/outlet): population i is bounced back (or rebuilt);
///               unused by solid voxels but bit 0 (flags::transaction_filler)
///   bits 27..28 kind: fluid, solid, velocity boundary, pressure boundary
///   bits 29..31 boundary id: index into the BoundaryTable (wall velocity, or the prescribed
///               density/velocity of an inlet/outlet)

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

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
/// A solid voxel's mask bits are otherwise unused. This one marks a solid voxel whose slots
/// share a memory transaction with a fluid voxel's (mark_transaction_fillers).
inline constexpr flag_t transaction_filler = 1;
/// True for a solid voxel marked transaction_filler.
KOKKOS_INLINE_FUNCTION constexpr bool fills_transaction(flag_t f) { return (f & transaction_filler) != 0; }
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

/// Marks transaction_filler every solid voxel among `flag_words` that shares an aligned group
/// of `group` consecutive voxels with a non-solid one: on a block-sparse grid the words of
/// consecutive voxels of a block are consecutive in each population's run, so a group is what
/// one memory transaction of a population holds. The AB update writes such a voxel's slots
/// too (StreamCollide::writes_transaction_fillers): a GPU sector that a step writes only in
/// part costs the memory a read to merge it (H100: 164 MB of a boundary kernel's 940 MB a
/// step at porosity 0.3, docs/performance.md). `group` 0 marks nothing.
inline void mark_transaction_fillers(std::vector<flag_t>& flag_words, std::size_t group) {
  if (group == 0) return;
  for (std::size_t first = 0; first < flag_words.size(); first += group) {
    const std::size_t end = first + group < flag_words.size() ? first + group : flag_words.size();
    bool fluid = false;
    for (std::size_t v = first; v < end; ++v) fluid = fluid || flags::kind(flag_words[v]) != CellKind::solid;
    if (!fluid) continue;
    for (std::size_t v = first; v < end; ++v) {
      if (flags::kind(flag_words[v]) == CellKind::solid) flag_words[v] |= flags::transaction_filler;
    }
  }
}

/// Whether a wall the kernels bounce populations off moves: a solid voxel among `flag_words`
/// whose boundary id has a nonzero velocity, or, with `outside_walls`, the wall of id 0 that
/// stands past a non-periodic side. When none moves, Ladd's moving-wall term is zero
/// everywhere, and the kernels skip the two reads it takes per bounced population (the
/// source's flag word, then its boundary's velocity).
inline bool walls_move(const std::vector<flag_t>& flag_words, const BoundaryTable& boundaries, bool outside_walls) {
  bool moves[max_boundaries];
  for (int id = 0; id < max_boundaries; ++id) {
    const double* u = boundaries[id].u;
    moves[id] = u[0] != 0 || u[1] != 0 || u[2] != 0;
  }
  if (outside_walls && moves[0]) return true;
  for (const flag_t f : flag_words) {
    if (flags::kind(f) == CellKind::solid && moves[flags::id(f)]) return true;
  }
  return false;
}

}  // namespace karman::lbm
