#pragma once
/// \file population_access.hpp
/// How a kernel of one step kind reads and writes the populations of a voxel through a
/// neighbour accessor N (the dense slab's Neighbours<D>, a Cartesian block's
/// CartesianNeighbours<D> or a block-sparse grid's BlockNeighbours): the pull or push of each
/// population, half-way bounce-back with Ladd's moving-wall term, the regularized open
/// boundaries (cell_flags.hpp), shared by the stream-collide, moments and immersed-boundary
/// kernels.

#include <karman/core/backend_traits.hpp>
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each_row.hpp>
#include <karman/core/prefetch.hpp>
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/precision.hpp>
#include <karman/lbm/regularized_boundary.hpp>

#include <cstdint>
#include <type_traits>

namespace karman::lbm {

/// True for the topology of a block-sparse grid (block_grid_view.hpp).
template <class Topology>
inline constexpr bool is_block_grid = false;
template <int Dim, int B, class MemorySpace>
inline constexpr bool is_block_grid<BlockGridView<Dim, B, MemorySpace>> = true;

/// True when neighbour accessor N can answer absent_voxel: a block-sparse grid stores nothing
/// past a non-periodic side, where a dense slab or Cartesian block has a halo or its wrap.
template <class N>
inline constexpr bool has_absent_neighbours = is_block_grid<typename N::topology_type>;

/// True when the groups of N's numbering are whole planes across the slab axis (SlabPartition),
/// so that a stencil neighbour's group is its plane's; a Cartesian block's faces, edges and
/// corners are not.
template <class N>
inline constexpr bool has_plane_groups = std::is_same_v<typename N::topology_type, Extents>;

/// Flag word of the voxels past a non-periodic side: a wall of id 0, as the dense box's halo
/// planes there (build_flags).
inline constexpr flag_t outside_flag = flags::make(CellKind::solid, 0, 0);

/// Voxel x - c_i, the source of population i in a pull.
template <class L, class N>
KOKKOS_FORCEINLINE_FUNCTION index_t upstream(const N& n, int i) {
  return n.at(-L::c(i, 0), -L::c(i, 1), -L::c(i, 2));
}
/// Voxel x + c_i, where population i goes.
template <class L, class N>
KOKKOS_FORCEINLINE_FUNCTION index_t downstream(const N& n, int i) {
  return n.at(L::c(i, 0), L::c(i, 1), L::c(i, 2));
}

/// Reads and writes populations of one step kind: shared by the update kernel and by the
/// moments kernel, so both see exactly the values the next collision sees. `P` is the
/// precision (precision.hpp): the fields hold its storage words, the kernel computes in its
/// compute type, and every access goes through get()/put(), which decode and encode. `N` is
/// the neighbour accessor (dense box or block-sparse grid).
template <class L, class P, class Layout, class MemorySpace, StepKind Kind, class Feat, class N = Neighbours<L::D>>
struct PopulationAccess {
  using T = compute_t<P>;
  using field_type = Field<storage_t<P>, Layout, MemorySpace>;
  field_type src;  ///< read lattice
  field_type dst;  ///< written lattice (the same as src for AA)
  Kokkos::View<const flag_t*, MemorySpace> flags;
  BoundaryTable boundaries;
  typename N::topology_type topology;  ///< the rank's box with halo planes, or the sparse grid's tables
  int origin[3] = {};                  ///< global coordinates of local voxel 0 (inflow profiles; 0 on the sparse grid)

  /// Global coordinate of voxel v along `axis`.
  KOKKOS_INLINE_FUNCTION int coordinate(index_t v, int axis) const {
    return topology.coordinate(v, axis) + origin[axis];
  }

  /// Population in slot q of voxel v of the read lattice.
  KOKKOS_INLINE_FUNCTION T get(index_t v, int q) const { return decode_population<L, P>(src(v, q), q); }
  /// Writes `value` into slot q of voxel v of the written lattice.
  KOKKOS_INLINE_FUNCTION void put(index_t v, int q, T value) const { dst(v, q) = encode_population<L, P>(value, q); }

  using span_type = typename field_type::group_span;
  static_assert(!has_group_span_v<Layout> || !has_absent_neighbours<N>,
                "karman::lbm: a grouped layout (Disaggregated) needs the dense box's groups");
  /// Whether accesses go through plane spans: a grouped layout on a slab.
  static constexpr bool by_plane_spans = has_group_span_v<Layout> && has_plane_groups<N>;
  /// The group spans of the planes below, at and above a voxel along the slab axis (at[1 + dz]).
  /// Groups are whole planes (SlabPartition), so a stencil neighbour's group is its plane's: a
  /// grouped layout (Disaggregated) resolves three spans per update instead of looking the
  /// group up on each of the 2Q accesses. Empty for the other layouts and on a Cartesian
  /// block, whose accesses look their group up each.
  struct PlaneSpans {
    span_type at[3];
  };
  KOKKOS_INLINE_FUNCTION PlaneSpans plane_spans(index_t v) const {
    if constexpr (by_plane_spans) {
      const index_t plane = topology.plane_size();
      return {{src.span_of(v - plane), src.span_of(v), src.span_of(v + plane)}};
    } else {
      (void)v;
      return {};
    }
  }
  /// get() of voxel v in the plane `dz` planes away from the updated one.
  KOKKOS_INLINE_FUNCTION T get(const PlaneSpans& p, int dz, index_t v, int q) const {
    if constexpr (by_plane_spans) {
      return decode_population<L, P>(src(p.at[1 + dz], v, q), q);
    } else {
      (void)p;
      (void)dz;
      return get(v, q);
    }
  }
  /// put() into voxel v in the plane `dz` planes away from the updated one.
  KOKKOS_INLINE_FUNCTION void put(const PlaneSpans& p, int dz, index_t v, int q, T value) const {
    if constexpr (by_plane_spans) {
      dst(p.at[1 + dz], v, q) = encode_population<L, P>(value, q);
    } else {
      (void)p;
      (void)dz;
      put(v, q, value);
    }
  }

  /// Prefetch hints (prefetch.hpp) for the lines holding slot q of voxels [v, v + row_chunk)
  /// `dz` planes away from the updated one, in the read lattice, or in the written one
  /// `ForWrite`. A grouped layout takes the plane's span even where v lies past that plane's
  /// group: an address is only a hint. A grouped layout without plane spans is not prefetched
  /// (its groups are looked up per voxel).
  template <bool ForWrite>
  KOKKOS_FORCEINLINE_FUNCTION void prefetch(const PlaneSpans& p, int dz, index_t v, int q) const {
    if constexpr (!has_group_span_v<Layout> || by_plane_spans) {
      constexpr index_t voxels_per_line =
          BackendTraits<Kokkos::DefaultHostExecutionSpace>::transaction_bytes / index_t(sizeof(storage_t<P>));
      span_type span{};
      if constexpr (by_plane_spans) span = p.at[1 + dz];
      (void)dz;
      const field_type& field = ForWrite ? dst : src;
      KARMAN_UNROLL
      for (index_t w = 0; w < row_chunk; w += voxels_per_line)
        karman::prefetch<ForWrite>(field.address_of(span, v + w, q));
    }
  }

  /// Ladd's moving-wall term 2 w_i rho0 (c_i . u_w) / cs^2 for population i entering from the
  /// solid voxel `wall` (rho0 = 1); zero when that voxel is not a wall. Compiled for walls at
  /// rest (Features::moving_walls off) it reads nothing, and the bounced population needs no
  /// neighbour index either.
  KOKKOS_INLINE_FUNCTION T wall_term(index_t wall, int i) const {
    if constexpr (!Feat::moving_walls) return T(0);
    flag_t fw;
    if constexpr (has_absent_neighbours<N>) {
      fw = wall == absent_voxel ? outside_flag : flags(wall);
    } else {
      fw = flags(wall);
    }
    if (flags::kind(fw) != CellKind::solid) return T(0);
    const BoundaryValue& b = boundaries[flags::id(fw)];
    return T(6) * T(L::w(i)) * (T(L::c(i, 0)) * T(b.u[0]) + T(L::c(i, 1)) * T(b.u[1]) + T(L::c(i, 2)) * T(b.u[2]));
  }

  /// Populations entering voxel v's collision, boundaries applied; `s` = v's neighbours (an N,
  /// or InRowNeighbours inside a row), `p` = plane_spans(v).
  template <class S>
  KOKKOS_INLINE_FUNCTION void load(index_t v, flag_t fl, const S& s, const PlaneSpans& p, T (&f)[L::Q]) const {
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) f[i] = pull(v, fl, s, p, i);
    regularize_open_boundary(v, fl, f);
  }

  /// Population i entering voxel v's collision, a wall's bounce-back applied: load() but for the
  /// open boundaries. Kernels that take some populations from elsewhere (the coupled pulls next to
  /// a level jump of a refined grid, level_coupling.hpp) pull the others through it.
  template <class S>
  KOKKOS_FORCEINLINE_FUNCTION T pull(index_t v, flag_t fl, const S& s, const PlaneSpans& p, int i) const {
    const int up = -L::c(i, L::slab_axis);  // plane of x - c_i
    const bool wall = Feat::flags && flags::blocked(fl, i);
    if constexpr (Kind == StepKind::aa_even) {
      // A population bounced by the odd step waits in its wall voxel (see store()); the
      // moving-wall term is added here, after decoding, exactly as the AB pull adds it, so
      // that AA and AB round alike when storage is narrower than arithmetic (FP16).
      const index_t from = upstream<L>(s, i);
      if (wall) {
        // Past a non-periodic side of a block-sparse grid the odd step parked it in slot i
        // of v itself (see store()).
        const bool parked = has_absent_neighbours<N> && from == absent_voxel;
        return (parked ? get(p, 0, v, i) : get(p, up, from, L::opposite(i))) + wall_term(from, i);
      }
      return get(p, 0, v, i);
    } else {
      if (wall) return get(p, 0, v, Kind == StepKind::ab_pull ? L::opposite(i) : i) + wall_term(upstream<L>(s, i), i);
      return get(p, up, upstream<L>(s, i), Kind == StepKind::ab_pull ? i : L::opposite(i));
    }
  }

  /// The regularized velocity or pressure boundary (Latt et al. 2008) of voxel v, when its flag
  /// word `fl` says it is one: rebuilds the populations f that load() pulled.
  KOKKOS_FORCEINLINE_FUNCTION void regularize_open_boundary(index_t v, flag_t fl, T (&f)[L::Q]) const {
    if constexpr (Feat::flags) {
      const CellKind kind = flags::kind(fl);
      if (kind == CellKind::velocity_boundary || kind == CellKind::pressure_boundary) {
        const BoundaryValue& b = boundaries[flags::id(fl)];
        T profile = T(1);
        if (b.profiled()) {
          const double s[3] = {double(coordinate(v, 0)), double(coordinate(v, 1)), double(coordinate(v, 2))};
          profile = T(b.profile(s));
        }
        regularize<L>(f, kind, b, profile);
      }
    } else {
      (void)v;
      (void)fl;
      (void)f;
    }
  }

  /// Writes voxel v's post-collision populations; `s` and `p` as for load().
  template <class S>
  KOKKOS_INLINE_FUNCTION void store(index_t v, const S& s, const PlaneSpans& p, const T (&f)[L::Q]) const {
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      if constexpr (Kind == StepKind::ab_pull) {
        put(p, 0, v, i, f[i]);
      } else if constexpr (Kind == StepKind::aa_even) {
        put(p, 0, v, L::opposite(i), f[i]);
      } else {
        // Every population goes to slot i of x + c_i, a wall voxel's too: there it waits for
        // x's even step, which reads it back as population opposite(i) and adds the moving-wall
        // term. Keeping it out of x's own slots matters under MPI: the even step's halo return
        // overwrites the crossing slots of shared voxels, and a bounced population parked there
        // would be lost.
        //
        // A block-sparse grid stores no voxel past a non-periodic side: there the population
        // waits in slot opposite(i) of x, which no voxel writes in this step (its source x + c_i
        // is not stored) and x read in load() already; the even step reads it back from there.
        const index_t to = downstream<L>(s, i);
        if (has_absent_neighbours<N> && to == absent_voxel) {
          put(p, 0, v, L::opposite(i), f[i]);
        } else {
          put(p, L::c(i, L::slab_axis), to, i, f[i]);
        }
      }
    }
  }
};

}  // namespace karman::lbm
