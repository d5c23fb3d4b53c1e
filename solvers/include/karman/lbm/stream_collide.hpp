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
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each_row.hpp>
#include <karman/core/prefetch.hpp>
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/lbm/block_tile.hpp>
#include <karman/lbm/block_walls.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/kernel_features.hpp>
#include <karman/lbm/moment_transforms.hpp>
#include <karman/lbm/moments_kernel.hpp>
#include <karman/lbm/population_access.hpp>
#include <karman/lbm/precision.hpp>
#include <karman/lbm/update_schedule.hpp>

#include <cstdint>
#include <type_traits>

namespace karman::lbm {

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

  /// The AB pull without flag words may write the slots of solid voxels too (UpdateSchedule's
  /// fillers): no update reads a solid voxel's slots of the lattice it writes before
  /// wall_slots.hpp refills those that are read, so the rest weights written here only make
  /// the memory sectors they share with fluid voxels whole (as the block-sparse grid's
  /// transaction fillers, below). A filler takes the rest weights where a fluid voxel pulls and
  /// collides, and both store through the same instructions: on a GPU the warp then writes each
  /// sector with one store (docs/performance.md §6.32, §6.35; SoA only: fills_partial_sectors).
  static constexpr bool fills_transactions = Kind == StepKind::ab_pull && !Feat::flags && fills_partial_sectors<Layout>;
  KARMAN_KERNEL_BODY void update_or_fill(index_t v, bool fill) const {
    static_assert(fills_transactions);
    const N s(v, access.topology);
    const auto planes = access.plane_spans(v);
    T f[L::Q];
    if (fill) {
      KARMAN_UNROLL
      for (int i = 0; i < L::Q; ++i) f[i] = T(L::w(i));
    } else {
      access.load(v, 0, s, planes, f);
      relax(v, f);
    }
    access.store(v, s, planes, f);
  }
  /// Moments and collision of voxel v's populations f, in place: what every path shares, and
  /// the kernels that pull some populations from elsewhere (a refined grid's jump blocks,
  /// refined_step.hpp) before they relax as this kernel does.
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
};

}  // namespace karman::lbm
