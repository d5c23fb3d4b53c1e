#pragma once
/// \file curved_wall.hpp
/// Curved walls by interpolated bounce-back (Bouzidi, Firdaouss & Lallemand, Phys. Fluids 13,
/// 3452 (2001)) and the force on them by momentum exchange (Ladd 1994; Mei, Yu, Shyy & Luo,
/// Phys. Rev. E 65, 041203 (2002)).
///
/// A *cut link* joins a fluid voxel x_f to a solid voxel x_s = x_f - c_i of a curved body; the
/// surface crosses it at the fraction q of the way from x_f to x_s. Population i of x_f, which
/// a pull would read from x_s, is the reflection of population opposite(i) that left x_f towards
/// the wall. Before each step a small kernel over the cut links writes that reflected value into
/// slot i of the solid voxel x_s (a slot nothing else reads or writes: solid voxels are never
/// updated), so the stream-collide kernels pull it like any other population and carry no
/// curved-wall code at all.

#include <karman/core/extents.hpp>
#include <karman/lbm/precision.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <string>

namespace karman::lbm {

/// How the populations reflected by a curved wall are computed.
enum class WallInterpolation {
  bounce_back,  ///< half-way bounce-back: the wall sits at q = 1/2 whatever its true position
  linear,       ///< Bouzidi et al. 2001 Eq. (5): linear interpolation, second order
  quadratic,    ///< Bouzidi et al. 2001 Eq. (6): quadratic interpolation, second order, smaller error
};

/// The option name of an interpolation ("bounce-back", "bouzidi-linear", "bouzidi-quadratic").
inline const char* wall_interpolation_name(WallInterpolation w) {
  switch (w) {
    case WallInterpolation::bounce_back:
      return "bounce-back";
    case WallInterpolation::linear:
      return "bouzidi-linear";
    case WallInterpolation::quadratic:
      return "bouzidi-quadratic";
  }
  return "";
}

/// One cut link of a curved body, in a rank's local voxel numbering.
struct WallLink {
  index_t fluid = 0;  ///< x_f, the fluid voxel whose population `direction` comes from the wall
  index_t solid = 0;  ///< x_s = x_f - c_i, whose slot `direction` receives the reflected value
  index_t next = 0;   ///< x_f + c_i, the next fluid voxel away from the wall (order >= 1)
  index_t next2 = 0;  ///< x_f + 2 c_i (order 2)
  int direction = 0;  ///< i
  /// Interpolation the neighbourhood allows: 0 bounce-back, 1 linear, 2 quadratic (lower than
  /// asked where x_f + c_i or x_f + 2 c_i is not fluid, e.g. in a gap one voxel wide).
  int order = 0;
  double q = 0.5;  ///< fraction of the link from x_f to the surface, in (0, 1]
};

/// The cut link of population `direction` of fluid voxel `fluid` (at global coordinates `at`) from
/// solid voxel `solid`, the surface at fraction q: interpolated to the order `order` asks where
/// `next` (x_f + c_i) and `next2` (x_f + 2 c_i) are fluid voxels (-1 where not). Throws
/// karman::Error, naming `who` and the voxel, unless q lies in (0, 1].
WallLink cut_link(index_t fluid, index_t solid, int direction, double q, index_t next, index_t next2, int order,
                  const std::array<int, 3>& at, const std::string& who);

/// Population i arriving at x_f from the wall (Bouzidi et al. 2001 Eqs. (5)-(6), written with
/// post-collision values at time t as in Krüger et al., The Lattice Boltzmann Method (2017)
/// §11.3.3). `out_f` = f*_opposite(i)(x_f), heading to the wall; `out_next`, `out_next2` =
/// f*_opposite(i) at x_f + c_i and x_f + 2 c_i; `in_f`, `in_next` = f*_i at x_f and x_f + c_i.
/// For q < 1/2 the reflected particle is interpolated from upstream of its departure point; for
/// q >= 1/2 from the values beside its arrival point. Every branch gives half-way bounce-back
/// (out_f) at q = 1/2.
template <class T>
KOKKOS_INLINE_FUNCTION T interpolated_bounce_back(int order, T q, T out_f, T out_next, T out_next2, T in_f, T in_next) {
  if (order == 1) {
    if (q < T(0.5)) return T(2) * q * out_f + (T(1) - T(2) * q) * out_next;
    return out_f / (T(2) * q) + (T(2) * q - T(1)) / (T(2) * q) * in_f;
  }
  if (order == 2) {
    if (q < T(0.5)) {
      return q * (T(2) * q + T(1)) * out_f + (T(1) + T(2) * q) * (T(1) - T(2) * q) * out_next -
             q * (T(1) - T(2) * q) * out_next2;
    }
    return out_f / (q * (T(2) * q + T(1))) + (T(2) * q - T(1)) / q * in_f +
           (T(1) - T(2) * q) / (T(1) + T(2) * q) * in_next;
  }
  return out_f;
}

/// Fraction q in [0, 1] of the segment from a (outside) to b (inside) at which it enters the
/// circle (sphere in 3D: z terms included) of centre `c` and radius r: the smaller root of
/// |a + q (b - a) - c|^2 = r^2. Throws std::logic_error unless a is outside and b inside (or on)
/// the circle, the only case a cut link presents.
double circle_link_fraction(const double (&a)[3], const double (&b)[3], const double (&c)[3], double r);

/// One component of the sum over the cut links of c_opposite(i) (f*_opposite(i)(x_f) + f_i(x_f)):
/// the momentum the body takes from the fluid in one step (Mei et al. 2002 Eq. (13) for a wall
/// at rest), i.e. the force on it in lattice units. A scalar reduction per axis keeps to what
/// every Kokkos version reduces alike (array reductions changed their join signature in 4.0).
template <class L, class Prec, class FieldType, class MemorySpace>
struct MomentumExchange {
  FieldType f;
  Kokkos::View<const WallLink*, MemorySpace> links;
  int axis = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t k, double& sum) const {
    const WallLink& l = links(k);
    const int i = l.direction, o = L::opposite(i);
    sum += double(L::c(o, axis)) * (double(decode_population<L, Prec>(f(l.fluid, o), o)) +
                                    double(decode_population<L, Prec>(f(l.solid, i), i)));
  }
};

/// Writes the reflected population of every cut link into its solid voxel's slot (see the
/// file comment); `f` is the lattice the next step reads.
template <class L, class Prec, class FieldType, class MemorySpace>
struct FillWallLinks {
  FieldType f;
  Kokkos::View<const WallLink*, MemorySpace> links;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t k) const {
    using T = compute_t<Prec>;
    const WallLink& l = links(k);
    const int i = l.direction, o = L::opposite(i);
    const auto get = [&](index_t voxel, int q) { return decode_population<L, Prec>(f(voxel, q), q); };
    // Only what the link's order uses is read: next and next2 are valid voxels only then.
    const T out_next = l.order >= 1 ? get(l.next, o) : T(0);
    const T in_next = l.order >= 2 ? get(l.next, i) : T(0);
    const T out_next2 = l.order >= 2 ? get(l.next2, o) : T(0);
    f(l.solid, i) = encode_population<L, Prec>(
        interpolated_bounce_back<T>(l.order, T(l.q), get(l.fluid, o), out_next, out_next2, get(l.fluid, i), in_next),
        i);
  }
};

}  // namespace karman::lbm
