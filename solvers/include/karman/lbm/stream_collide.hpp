#pragma once
/// \file stream_collide.hpp
/// The one fused stream-collide kernel (Tomczak Alg. 1; Karrer "fused pull"), templated on
/// lattice, precision, layout, collision, step kind and the features a case needs. Layout,
/// lattice and precision are compile-time: the hot loop has no runtime switch on them.
///
/// Step kinds:
///  - ab_pull: two lattices; read the neighbours' post-collision values (f_i from x - c_i),
///    collide, write the own voxel of the other lattice.
///  - aa_odd / aa_even: one lattice updated in place (the AA pattern, Bailey et al. 2009; the
///    one-lattice idea of Valero-Lara): the even step reads and writes its own voxel only
///    (post-collision f_i stored in slot opposite(i)); the odd step reads slot opposite(i) of
///    x - c_i and writes slot i of x + c_i. Each memory slot is read and written by the same
///    voxel within a step, so no races, and half the memory of AB.
/// Walls use half-way bounce-back with Ladd's moving-wall term; a flag word per voxel
/// (cell_flags.hpp) says which populations come from walls.
///
/// The kernel reaches neighbours through an accessor N built as N(voxel, topology): the dense
/// slab's Neighbours<D> by default, a Cartesian block's CartesianNeighbours<D>
/// (cartesian_neighbours.hpp), or BlockNeighbours on a block-sparse grid (Meneghin & Mahmoud
/// §IV), so every grid runs this one source (docs/block_sparse.md, docs/architecture.md).

#include <karman/core/backend_traits.hpp>
#include <karman/core/block_grid_view.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each_row.hpp>
#include <karman/core/neighbours.hpp>
#include <karman/core/prefetch.hpp>
#include <karman/lbm/block_tile.hpp>
#include <karman/lbm/block_walls.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/moment_transforms.hpp>
#include <karman/lbm/precision.hpp>
#include <karman/lbm/regularized_boundary.hpp>

#include <cstdint>
#include <type_traits>

namespace karman::lbm {

/// Launch bounds of the stream-collide kernel: at most 256 threads a block. The bound changes
/// the compiler's register budget and, over the H100 sweep of every variant, made most of them
/// faster (docs/performance.md, launch bounds). CPU backends ignore it.
using StreamCollideLaunch = Kokkos::LaunchBounds<256, 1>;

/// Which kind of update a launch performs.
enum class StepKind { ab_pull, aa_odd, aa_even };

/// Launch bounds of the dense solver's stream-collide kernels of precision P and step kind K:
/// StreamCollideLaunch, but 4 blocks of 256 threads an SM (64 registers) for the AB update of
/// 16-bit storage, which is instruction-bound and gains from the occupancy; the AA updates lose
/// at 64 registers and keep the default (docs/performance.md §6.10).
template <class P, StepKind K>
using StreamCollideLaunchFor = Kokkos::LaunchBounds<256, (sizeof(storage_t<P>) == 2 && K == StepKind::ab_pull) ? 4 : 1>;

/// Compile-time features of a case: flags (walls/inlets; off for fully periodic fluid boxes),
/// a body force, whether that force is read per voxel from a field (immersed boundaries,
/// immersed_boundary.hpp) instead of being one uniform vector, and whether a wall may move
/// (Ladd's term; off, a bounced population reads neither its wall's flag word nor its velocity:
/// the block-sparse boundary kernel at porosity 0.3 runs 17 % faster, docs/performance.md).
template <bool Flags, bool Forced, bool ForceField = false, bool MovingWalls = true>
struct Features {
  static constexpr bool flags = Flags;
  static constexpr bool forced = Forced || ForceField;
  static constexpr bool force_field = ForceField;
  static constexpr bool moving_walls = Flags && MovingWalls;
};

/// The per-voxel body force a kernel of features with force_field reads: (local voxel, axis),
/// L::D components; an empty member for the other features.
template <class T, class MemorySpace, bool Field>
struct VoxelForce {};
template <class T, class MemorySpace>
struct VoxelForce<T, MemorySpace, true> {
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> field;
  /// The force of voxel v as the vector the collisions take (z = 0 on a 2D lattice).
  template <int D>
  KOKKOS_INLINE_FUNCTION void at(index_t v, T (&force)[3]) const {
    force[0] = field(v, 0);
    force[1] = field(v, 1);
    force[2] = D == 3 ? field(v, 2) : T(0);
  }
};

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
    for (int i = 0; i < L::Q; ++i) {
      const int up = -L::c(i, L::slab_axis);  // plane of x - c_i
      if constexpr (Kind == StepKind::aa_even) {
        // A population bounced by the odd step waits in its wall voxel (see store()); the
        // moving-wall term is added here, after decoding, exactly as the AB pull adds it, so
        // that AA and AB round alike when storage is narrower than arithmetic (FP16).
        const bool wall = Feat::flags && flags::blocked(fl, i);
        const index_t from = upstream<L>(s, i);
        if (wall) {
          // Past a non-periodic side of a block-sparse grid the odd step parked it in slot i
          // of v itself (see store()).
          const bool parked = has_absent_neighbours<N> && from == absent_voxel;
          f[i] = (parked ? get(p, 0, v, i) : get(p, up, from, L::opposite(i))) + wall_term(from, i);
        } else {
          f[i] = get(p, 0, v, i);
        }
      } else {
        const bool wall = Feat::flags && flags::blocked(fl, i);
        if (wall) {
          f[i] = get(p, 0, v, Kind == StepKind::ab_pull ? L::opposite(i) : i) + wall_term(upstream<L>(s, i), i);
        } else {
          f[i] = get(p, up, upstream<L>(s, i), Kind == StepKind::ab_pull ? i : L::opposite(i));
        }
      }
    }
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

/// Density and velocity u = (sum c f + F/2) / rho of the populations f (Guo 2002).
/// Sums go to locals (a `rho` reference could alias f, forcing a store per population on
/// CPUs), and c_i = 0 terms are skipped rather than multiplied: 0 * f cannot be dropped under
/// IEEE rules, so it would cost a multiply-add each. The sums equal those of c * f bitwise
/// (but for the sign of an exact zero).
template <class L, class T, bool Forced>
KOKKOS_INLINE_FUNCTION void moments(const T (&f)[L::Q], const T force[3], T& rho, T (&u)[3]) {
  T r = 0;
  T m[3] = {0, 0, 0};
  KARMAN_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    r += f[i];
    KARMAN_UNROLL
    for (int d = 0; d < 3; ++d) {
      if (L::c(i, d) > 0) m[d] += f[i];
      if (L::c(i, d) < 0) m[d] -= f[i];
    }
  }
  rho = r;
  const T inv_rho = T(1) / r;
  for (int d = 0; d < 3; ++d) u[d] = (Forced ? m[d] + T(0.5) * force[d] : m[d]) * inv_rho;
}

/// The fused update of one voxel: load (stream + boundaries), moments, collide, store.
///
/// On the dense box it also runs by x-rows on CPUs (for_each_row.hpp): a row resolves its
/// stencil offsets and plane spans once, and the voxels inside it run the same update inlined
/// into a loop vectorised across x. Every slot is read and written by one voxel within a step
/// (see StepKind), so the iterations of that loop are independent, AA's in-place ones too.
template <class L, class P, class Layout, class MemorySpace, class Collision, StepKind Kind, class Feat,
          class N = Neighbours<L::D>>
struct StreamCollide {
  using T = compute_t<P>;
  using access_type = PopulationAccess<L, P, Layout, MemorySpace, Kind, Feat, N>;
  access_type access;
  CollisionRates<T> rates;
  T force[3] = {0, 0, 0};
  VoxelForce<T, MemorySpace, Feat::force_field> voxel_force;

  /// What the voxels of one x-row share.
  struct Row {
    RowOffsets<L::D> offsets;
    typename access_type::PlaneSpans planes;
  };
  /// By rows on CPUs (for_each_row.hpp), but the boundary kernels (flag words): by rows they ran
  /// no faster than per voxel (docs/performance.md §6.19), and the split schedule runs
  /// them over a voxel list, per voxel, anyway. Their row bodies were a quarter of a solver unit's
  /// compile time (docs/building.md).
  static constexpr bool by_rows = std::is_same_v<N, Neighbours<L::D>> && !Feat::flags;
  /// The AB pull reads one lattice and writes the other: a voxel updated twice is updated once.
  static constexpr bool rerunnable = Kind == StepKind::ab_pull;
  int row_length() const { return access.topology.nx; }
  Row row(index_t first) const { return {RowOffsets<L::D>(first, access.topology), access.plane_spans(first)}; }

  /// The update of voxel v.
  KARMAN_KERNEL_BODY void operator()(index_t v) const { update(v, N(v, access.topology), access.plane_spans(v)); }
  /// Prefetch hints for the updates of voxels [v, v + row_chunk) of row `r`'s planes (the rows
  /// of for_each_row pass a v some rows ahead of the one they update): the slots load() reads
  /// away from walls, and the slots an AB update writes (which it would read first otherwise).
  KOKKOS_FORCEINLINE_FUNCTION void prefetch(index_t v, const Row& r) const {
    const InRowNeighbours<L::D> s(v, r.offsets);
    KARMAN_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      if constexpr (Kind == StepKind::aa_even) {
        access.template prefetch<false>(r.planes, 0, v, i);
      } else {
        access.template prefetch<false>(r.planes, -L::c(i, L::slab_axis), upstream<L>(s, i), read_slot(i));
      }
      if constexpr (Kind == StepKind::ab_pull) access.template prefetch<true>(r.planes, 0, v, i);
    }
  }
  /// The update of voxel v strictly inside its x-row `r`.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t v, const Row& r) const {
    update(v, InRowNeighbours<L::D>(v, r.offsets), r.planes);
  }

  /// The AB update on a block-sparse grid writes the slots of the solid voxels marked
  /// flags::transaction_filler as well, with the rest weights: in AB no step reads a solid
  /// voxel's slots (a bounced population comes from the voxel's own), and a memory transaction
  /// shared with a fluid voxel is then written whole. On GPUs the launch passes the blocks'
  /// inactive voxels too (for_each_block.hpp); their flag word says solid.
  static constexpr bool writes_transaction_fillers =
      Feat::flags && Kind == StepKind::ab_pull && is_block_grid<typename N::topology_type>;
  static constexpr bool visits_inactive_voxels = writes_transaction_fillers;

  /// Whether the boundary blocks of a block-sparse grid run by tiles too (by_blocks): in the AB
  /// update with walls at rest, whose bounce-back is a copy within the block (block_walls.hpp).
  /// A moving wall's term would be added in the compute type, the AA steps park bounced
  /// populations in wall voxels, so both keep the update per voxel.
  static constexpr bool boundary_tiles = Feat::flags && !Feat::moving_walls && Kind == StepKind::ab_pull;

  /// On CPUs the blocks of a block-sparse grid run whole (for_each_block.hpp) where each
  /// population of a block is one run: the non-boundary blocks (no flags, every neighbour block
  /// stored) and, with boundary_tiles, any block, boundary or not.
  static constexpr bool by_blocks =
      (!Feat::flags || boundary_tiles) && streams_by_block_tiles<Layout, typename N::topology_type>;

  /// The update of every voxel of block b (by_blocks): each population's upstream values pulled
  /// into a tile (block_tile.hpp), walls bounced within the tile (boundary_tiles), the collision
  /// vectorised across the block's voxels, the result written to the block's own runs (AB, AA
  /// even) or pushed to the downstream voxels (AA odd), slot for slot as load() and store()
  /// address them. Velocity and pressure boundary voxels are then updated again per voxel
  /// (their regularisation is not vectorised): the AB update reads one lattice and writes the
  /// other, so the second update of a voxel replaces the first.
  KARMAN_KERNEL_BODY KARMAN_FLATTEN void update_block(block_index_t b) const {
    using Tile = typename BlockTileOf<typename N::topology_type>::type;
    using Word = storage_t<P>;
    constexpr int voxels = Tile::shape::voxels;
    const index_t first = index_t(b) * voxels;
    const block_index_t* row = table_row(b);
    if constexpr (Kind != StepKind::aa_even) prefetch_table_row(b);
    alignas(64) Word tile[L::Q][voxels];
    const Word* from[L::Q];
    Word* to[L::Q];
    static_for<L::Q>([&](auto population) KARMAN_INLINE_LAMBDA {
      constexpr int i = population;
      constexpr int read = read_slot(i), written = written_slot(i);
      // The rest population, and every population of the AA even step, stays in its voxel.
      if constexpr (Kind == StepKind::aa_even || i == L::rest) {
        from[i] = &access.src(first, read);
        to[i] = &access.dst(first, written);
      } else {
        // A boundary block's neighbour may be absent (all solid, or past a closed side): its
        // values would be bounced, so the block's own run stands in for it.
        const auto run = [&](block_index_t n) {
          const block_index_t source = boundary_tiles && n == absent_block ? b : n;
          return &access.src(index_t(source) * voxels, read);
        };
        prefetch_pull<i>(b);
        Tile::template pull<L::c(i, 0), L::c(i, 1), L::c(i, 2)>(row, run, tile[i]);
        from[i] = tile[i];
        to[i] = Kind == StepKind::aa_odd ? tile[i] : &access.dst(first, written);
      }
    });
    // The collision of voxels [begin, begin + length), vectorised across them.
    const auto collide = [&](int begin, auto length) KARMAN_INLINE_LAMBDA {
      KARMAN_SIMD
      for (int l = begin; l < begin + int(length); ++l) {
        T f[L::Q];
        KARMAN_UNROLL
        for (int i = 0; i < L::Q; ++i) {
          f[i] = decode_population<L, P>(from[i][l], read_slot(i));
        }
        relax(first + l, f);
        KARMAN_UNROLL
        for (int i = 0; i < L::Q; ++i) {
          to[i][l] = encode_population<L, P>(f[i], written_slot(i));
        }
      }
    };
    if constexpr (boundary_tiles) {
      using Walls = BlockWalls<voxels>;
      const flag_t* flag_words = &access.flags(first);
      static_for<L::Q>([&](auto population) KARMAN_INLINE_LAMBDA {
        constexpr int i = population;
        if constexpr (i != L::rest) {
          const Word at_rest = encode_population<L, P>(T(L::w(i)), i);
          Walls::bounce(flag_words, i, &access.src(first, L::opposite(i)), at_rest, tile[i]);
        }
      });
      // Chunks of solid voxels only are not collided: no AB step reads a solid voxel's slots.
      const Walls walls(flag_words);
      for (int c = 0; c < voxels / Walls::chunk; ++c) {
        if (!((walls.solid_chunks >> c) & 1u)) collide(c * Walls::chunk, std::integral_constant<int, Walls::chunk>{});
      }
      if (walls.open) update_open_boundaries(first);
    } else {
      collide(0, std::integral_constant<int, voxels>{});
    }
    if constexpr (Kind == StepKind::aa_odd) {
      static_for<L::Q>([&](auto population) KARMAN_INLINE_LAMBDA {
        constexpr int i = population;
        if constexpr (i != L::rest) {
          const auto run = [&](block_index_t n) { return &access.dst(index_t(n) * voxels, i); };
          Tile::template push<L::c(i, 0), L::c(i, 1), L::c(i, 2)>(row, run, tile[i]);
        }
      });
    }
  }

 private:
  /// The per-voxel update of the velocity and pressure boundary voxels of the block whose first
  /// voxel is `first` (boundary_tiles).
  KOKKOS_INLINE_FUNCTION void update_open_boundaries(index_t first) const {
    constexpr int voxels = BlockTileOf<typename N::topology_type>::type::shape::voxels;
    for (int l = 0; l < voxels; ++l) {
      if (BlockWalls<voxels>::open_boundary(access.flags(first + l))) (*this)(first + l);
    }
  }

  /// Blocks on from the one updated whose pulls update_block hints (prefetch.hpp); the
  /// neighbour-table row it hints is twice as far. 2, 4 and 8 ran alike at 128^3 on two Zen 4
  /// cores; 4 held at 64^3 too (docs/performance.md §6.30).
  static constexpr block_index_t block_prefetch_distance = 4;

  /// Prefetch hint for the neighbour-table row of block b + 2 block_prefetch_distance, which
  /// prefetch_pull reads then: without it a block began with two misses back to back, its table
  /// row and then the runs that row names (§6.20). Blocks past the last are not hinted.
  KOKKOS_FORCEINLINE_FUNCTION void prefetch_table_row(block_index_t b) const {
    using Tile = typename BlockTileOf<typename N::topology_type>::type;
    if (b + 2 * block_prefetch_distance < access.topology.blocks) {
      const block_index_t* row = table_row(b + 2 * block_prefetch_distance);
      karman::prefetch<false>(reinterpret_cast<std::uintptr_t>(row));
      karman::prefetch<false>(reinterpret_cast<std::uintptr_t>(row + Tile::shape::directions - 1));
    }
  }

  /// Block b's row of the neighbour table (BlockGridView::neighbours).
  KOKKOS_FORCEINLINE_FUNCTION const block_index_t* table_row(block_index_t b) const {
    using Tile = typename BlockTileOf<typename N::topology_type>::type;
    return access.topology.neighbours.data() + index_t(b) * Tile::shape::directions;
  }

  /// Prefetch hints for the lines the pull of population i reads in the update of block
  /// b + block_prefetch_distance, its neighbour blocks' as well as its own
  /// (BlockTile::for_each_pulled_line), issued beside the pull of population i of block b so
  /// the hints spread over the update: faster than hints for the own runs of block b + 16, all at
  /// its start, in AB and the AA odd step (docs/performance.md §6.30, §6.20). The AA even step
  /// reads its own runs only and runs fastest without hints; no write hints either: hinting the runs
  /// an AB update writes was slower (§6.22).
  template <int i>
  KOKKOS_FORCEINLINE_FUNCTION void prefetch_pull(block_index_t b) const {
    using Tile = typename BlockTileOf<typename N::topology_type>::type;
    constexpr int voxels = Tile::shape::voxels;
    constexpr int line_bytes = BackendTraits<Kokkos::DefaultHostExecutionSpace>::transaction_bytes;
    const block_index_t ahead = b + block_prefetch_distance;
    if (ahead >= access.topology.blocks) return;
    // The block hinted may be a boundary block, with absent neighbours, where block b is not (the
    // block sets meet, and interleave under bitmask grouping): its own run stands in for them.
    const auto run = [&](block_index_t n) {
      return &access.src(index_t(n == absent_block ? ahead : n) * voxels, read_slot(i));
    };
    Tile::template for_each_pulled_line<L::c(i, 0), L::c(i, 1), L::c(i, 2), storage_t<P>, line_bytes>(
        table_row(ahead), run,
        [](const auto* line) { karman::prefetch<false>(reinterpret_cast<std::uintptr_t>(line)); });
  }

  /// The slot population i is read from and the slot it is written to by a voxel away from
  /// walls, as load() and store() address them (each word decoded and encoded with its slot).
  static constexpr int read_slot(int i) { return Kind == StepKind::aa_odd ? L::opposite(i) : i; }
  static constexpr int written_slot(int i) { return Kind == StepKind::aa_even ? L::opposite(i) : i; }

  template <class S>
  KOKKOS_FORCEINLINE_FUNCTION void update(index_t v, const S& s, const typename access_type::PlaneSpans& planes) const {
    flag_t fl = 0;
    if constexpr (Feat::flags) {
      fl = access.flags(v);
      if (flags::kind(fl) == CellKind::solid) {
        if constexpr (writes_transaction_fillers) {
          if (flags::fills_transaction(fl)) {
            KARMAN_UNROLL
            for (int i = 0; i < L::Q; ++i) access.put(v, i, T(L::w(i)));
          }
        }
        return;
      }
    }
    T f[L::Q];
    access.load(v, fl, s, planes, f);
    relax(v, f);
    access.store(v, s, planes, f);
  }

  /// Moments and collision of voxel v's populations f, in place: what every path shares.
  KOKKOS_FORCEINLINE_FUNCTION void relax(index_t v, T (&f)[L::Q]) const {
    T rho, u[3];
    if constexpr (Feat::force_field) {
      T own[3];
      voxel_force.template at<L::D>(v, own);
      moments<L, T, true>(f, own, rho, u);
      Collision::template collide<L, T, true>(f, rho, u, own, rates);
    } else {
      (void)v;
      moments<L, T, Feat::forced>(f, force, rho, u);
      Collision::template collide<L, T, Feat::forced>(f, rho, u, force, rates);
    }
  }
};

/// Density and velocity of every owned voxel as the next collision will see them; walls get 0.
template <class L, class P, class Layout, class MemorySpace, StepKind Kind, class Feat, class N = Neighbours<L::D>>
struct Moments {
  using T = compute_t<P>;
  PopulationAccess<L, P, Layout, MemorySpace, Kind, Feat, N> access;
  Kokkos::View<double*, MemorySpace> rho_out;                     ///< indexed by v - first
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> u_out;  ///< (v - first, axis)
  index_t first = 0;
  T force[3] = {0, 0, 0};
  VoxelForce<T, MemorySpace, Feat::force_field> voxel_force;

  KARMAN_KERNEL_BODY void operator()(index_t v) const {
    const index_t k = v - first;
    flag_t fl = 0;
    if constexpr (Feat::flags) {
      fl = access.flags(v);
      if (flags::kind(fl) == CellKind::solid) {
        rho_out(k) = 0;
        for (int d = 0; d < 3; ++d) u_out(k, d) = 0;
        return;
      }
    }
    const N s(v, access.topology);
    T f[L::Q];
    access.load(v, fl, s, access.plane_spans(v), f);
    T rho, u[3];
    if constexpr (Feat::force_field) {
      T own[3];
      voxel_force.template at<L::D>(v, own);
      moments<L, T, true>(f, own, rho, u);
    } else {
      moments<L, T, Feat::forced>(f, force, rho, u);
    }
    rho_out(k) = double(rho);
    for (int d = 0; d < 3; ++d) u_out(k, d) = double(u[d]);
  }
};

}  // namespace karman::lbm
