#pragma once
/// \file block_tile.hpp
/// Streaming of one block of a block-sparse grid through a tile, for the CPU launch by blocks
/// (for_each_block.hpp): a population's B^Dim values of a block are one contiguous run in the
/// layouts the sparse grid uses, so a block's pull gathers, for each population, the run of
/// every voxel's upstream voxel into a tile of B^Dim values by x-rows of B (a row whose source
/// crosses the block's side along x takes its end value from the x-neighbour block), and the
/// collision then runs across the tile's voxels as one loop the compiler vectorises, as the
/// dense grid's x-rows do (for_each_row.hpp). The AA odd step pushes the collided tile back the
/// same way. Per voxel each value goes through the same reads, the same decode and the same
/// arithmetic as in the per-voxel update, so the results are bitwise those of that update (and of
/// the dense grid: SparseSolver.SameFieldsAsDenseBitwise).

#include <karman/core/backend_traits.hpp>
#include <karman/core/block_grid_view.hpp>
#include <karman/core/block_shape.hpp>
#include <karman/core/layout_csoa.hpp>
#include <karman/core/layout_soa.hpp>

#include <cstring>
#include <utility>

/// Whether the host compiler offers vector types and __builtin_shufflevector (clang; GCC from
/// 12). Device compilers never run the CPU launch by blocks.
#if !defined(__CUDACC__) && !defined(__HIPCC__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))
#define KARMAN_VECTOR_SHUFFLE 1
#else
#define KARMAN_VECTOR_SHUFFLE 0
#endif

namespace karman::lbm {

/// True when each component of a block's `Voxels` voxels is one contiguous run of Layout
/// (SoA; CSoA whose chunk holds whole blocks, as the sparse grid's block_layout).
template <class Layout, int Voxels>
inline constexpr bool block_runs_contiguous = false;
template <int Voxels>
inline constexpr bool block_runs_contiguous<SoA, Voxels> = true;
template <int Alpha, int Voxels>
inline constexpr bool block_runs_contiguous<CSoA<Alpha>, Voxels> = Alpha % Voxels == 0;

/// Row-wise moves between a block's voxels and their stencil neighbours at offset c.
template <int Dim, int B>
struct BlockTile {
  using shape = BlockShape<Dim, B>;
  /// x-rows of a block.
  static constexpr int rows = shape::voxels / B;

  /// The offset c = (cx, cy, cz) is a template argument: each run then has a length known at
  /// compile time, and its copy becomes a few vector moves instead of a call to memcpy.
  ///
  /// tile[l] = value of voxel l - c for every voxel l of the block whose row of the neighbour
  /// table is `row` (all 3^Dim neighbours stored, as for a non-boundary block); `run(block)`
  /// points at the run of the component read in `block`. The rows of a z-plane whose sources
  /// lie in one block are one contiguous copy when cx = 0; otherwise each row is shifted by
  /// -cx, its end value taken from the x-neighbour block.
  template <int cx, int cy, int cz, class Word, class Run>
  static void pull(const block_index_t* row, const Run& run, Word* tile) {
    for_each_run<cy, cz>([&](int oy, int oz, int first_row, int rows_in_run, int source_row) {
      const Word* from = run(row[shape::direction(0, oy, oz)]) + source_row * B;
      Word* to = tile + first_row * B;
      if constexpr (cx == 0) {
        KARMAN_SIMD
        for (int k = 0; k < rows_in_run * B; ++k) to[k] = from[k];
      } else {
        // Row by row, each row shifted along x with its end value from the x-neighbour block.
        const Word* side = run(row[shape::direction(-cx, oy, oz)]) + source_row * B;
        for (int r = 0; r < rows_in_run; ++r) shift_row<cx>(from + r * B, side + r * B, to + r * B);
      }
    });
  }

  /// The converse of pull: the value of voxel l + c = tile[l] for every voxel l of the block;
  /// `run(block)` points at the run of the component written in `block`.
  template <int cx, int cy, int cz, class Word, class Run>
  static void push(const block_index_t* row, const Run& run, const Word* tile) {
    if constexpr (cx == 0) {
      // Voxel l + c = tile[l]: the runs of a pull by -c, written instead of read.
      for_each_run<-cy, -cz>([&](int oy, int oz, int first_row, int rows_in_run, int target_row) {
        Word* to = run(row[shape::direction(0, oy, oz)]) + target_row * B;
        const Word* from = tile + first_row * B;
        KARMAN_SIMD
        for (int k = 0; k < rows_in_run * B; ++k) to[k] = from[k];
      });
      return;
    }
    // Along x by rows: a run shifted by cx would also write the x-edge slots of the rows beside,
    // which the blocks beside this one push to in the same step.
    for (int r = 0; r < rows; ++r) {
      int yd = r % B + cy, zd = r / B + cz;
      const int oy = side(yd), oz = side(zd);
      yd -= oy * B;
      zd -= oz * B;
      const int to = (yd + B * zd) * B;
      Word* mid = run(row[shape::direction(0, oy, oz)]) + to;
      const Word* in = tile + r * B;
      if constexpr (cx > 0) {
        for (int x = 0; x + 1 < B; ++x) mid[x + 1] = in[x];
        run(row[shape::direction(1, oy, oz)])[to] = in[B - 1];
      } else {
        for (int x = 1; x < B; ++x) mid[x - 1] = in[x];
        run(row[shape::direction(-1, oy, oz)])[to + B - 1] = in[0];
      }
    }
  }

 private:
  /// Calls f(oy, oz, first_row, rows_in_run, source_row) for the runs of rows of a block whose
  /// sources at (y - cy, z - cz) lie in the block at (0, oy, oz) from it: rows [first_row,
  /// first_row + rows_in_run) of this block read rows from source_row on of that block, one
  /// contiguous run each (a z-plane's rows split at most once along y; whole planes when cy = 0).
  template <int cy, int cz, class F>
  static void for_each_run(const F& f) {
    const int planes = shape::voxels / (B * B);
    // The ranges along one axis a shift by c splits [0, B) into: (offset, first, count, source).
    const auto ranges = [](int c, auto&& g) {
      if (c == 0) {
        g(0, 0, B, 0);
      } else if (c > 0) {
        g(-1, 0, 1, B - 1);
        g(0, 1, B - 1, 0);
      } else {
        g(0, 0, B - 1, 1);
        g(1, B - 1, 1, 0);
      }
    };
    const auto z_ranges = [&](auto&& g) {
      if (planes == 1) {
        g(0, 0, 1, 0);
      } else {
        ranges(cz, g);
      }
    };
    if constexpr (cy == 0) {
      // Whole planes: rows of consecutive planes are consecutive.
      z_ranges([&](int oz, int z0, int nz, int zs) { f(0, oz, z0 * B, nz * B, zs * B); });
      return;
    }
    z_ranges([&](int oz, int z0, int nz, int zs) {
      for (int z = 0; z < nz; ++z) {
        ranges(cy, [&](int oy, int y0, int ny, int ys) { f(oy, oz, y0 + B * (z0 + z), ny, ys + B * (zs + z)); });
      }
    });
  }

  /// out = the row `in` shifted by cx along x (out[x] = in[x - cx]), the value that enters
  /// from outside taken from `edge`, the row beside it in the x-neighbour block.
  ///
  /// GCC builds such a row from scalar loads and stores, and a scalar store read back at once
  /// by the vector loads of the collision loop costs a failed store forwarding each: the pull
  /// then took about as long as the collision (two Zen cores, docs/performance.md). With GCC's
  /// and clang's vector extensions a row is two loads, one shuffle and one store.
  template <int cx, class Word>
  static void shift_row(const Word* in, const Word* edge, Word* out) {
#if KARMAN_VECTOR_SHUFFLE
    // Rows up to 32 bytes (an AVX register; two SSE registers without AVX).
    if constexpr (sizeof(Word) * B <= 32) {
      typedef Word Vector __attribute__((vector_size(sizeof(Word) * B)));
      Vector a, b;
      std::memcpy(&a, in, sizeof a);
      std::memcpy(&b, edge, sizeof b);
      store_shifted<cx>(a, b, out, std::make_integer_sequence<int, B>{});
      return;
    }
#endif
    for (int x = 0; x < B; ++x) {
      const int from = x - cx;
      out[x] = from < 0 ? edge[B - 1] : (from >= B ? edge[0] : in[from]);
    }
  }

#if KARMAN_VECTOR_SHUFFLE
  /// Stores lanes x - cx of `in`, or of `edge` where x - cx leaves [0, B), to out[x]: lanes of
  /// the pair (in, edge) numbered 0 .. 2B - 1. Vectors pass by reference only: one returned by
  /// value changes the calling convention with the instruction set (GCC's -Wpsabi).
  template <int cx, class Vector, class Word, int... x>
  static void store_shifted(const Vector& in, const Vector& edge, Word* out, std::integer_sequence<int, x...>) {
    const Vector shifted = __builtin_shufflevector(in, edge, (x - cx < 0 ? 2 * B - 1 : (x - cx >= B ? B : x - cx))...);
    std::memcpy(out, &shifted, sizeof shifted);
  }
#endif

  /// Which block along an axis a local coordinate off the block by at most one lands in.
  static int side(int coordinate) { return coordinate < 0 ? -1 : (coordinate >= B ? 1 : 0); }
};

/// The BlockTile of a block-sparse grid's topology (BlockGridView).
template <class Topology>
struct BlockTileOf;
template <int Dim, int B, class MemorySpace>
struct BlockTileOf<BlockGridView<Dim, B, MemorySpace>> {
  using type = BlockTile<Dim, B>;
};

/// True when a grid of `Topology` with populations in `Layout` can run by block tiles: a
/// block-sparse grid whose blocks hold each component as one run.
template <class Layout, class Topology>
inline constexpr bool streams_by_block_tiles = false;
template <class Layout, int Dim, int B, class MemorySpace>
inline constexpr bool streams_by_block_tiles<Layout, BlockGridView<Dim, B, MemorySpace>> =
    block_runs_contiguous<Layout, BlockShape<Dim, B>::voxels>;

}  // namespace karman::lbm
