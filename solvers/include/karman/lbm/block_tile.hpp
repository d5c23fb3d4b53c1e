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
#include <karman/core/layout_csoa.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/core/sparse/block_shape.hpp>

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

  /// The offset c = (cx, cy, cz) is a template argument: every row's source block and row are
  /// then known at compile time, and a row is one or two vector loads and a shuffle.
  ///
  /// tile[l] = value of voxel l - c for every voxel l of the block whose row of the neighbour
  /// table is `row` (all 3^Dim neighbours stored, as for a non-boundary block); `run(block)`
  /// points at the run of the component read in `block`. Each row of the tile is the row at
  /// (y - cy, z - cz), in this block or the one beside it, shifted by -cx along x with its end
  /// value from the x-neighbour block.
  ///
  /// The tile is written in stores as wide as the vector loads of the collision loop that reads
  /// it back (two rows of B = 4 FP32 or 16-bit words, one row of FP64): a load spanning several
  /// narrower stores cannot take its data from them while they are in flight, and they are in
  /// flight while the pull's loads miss. With a store a row the 128^3 update ran at a third of
  /// the dense grid's rate on two cores, against 1.4 times it where the grid fits in cache;
  /// these stores and StreamCollide::prefetch_block's hints together took it to 0.43-0.47 of
  /// the dense rate (docs/performance.md §6.20). The pulls are forced inline, as are the lambdas
  /// of update_block that call them (KARMAN_INLINE_LAMBDA): GCC kept them out of line, and both
  /// inline ran the 128^3 box 9-14 % and the porosity-0.3 packs 20-25 % faster on two EPYC cores,
  /// either alone no faster (§6.24).
  template <int cx, int cy, int cz, class Word, class Run>
  KOKKOS_FORCEINLINE_FUNCTION static void pull(const block_index_t* row, const Run& run, Word* tile) {
    constexpr int per_store = rows_per_store<Word>;
    pull_rows<cx, cy, cz>(row, run, tile, std::make_integer_sequence<int, rows / per_store>{});
  }

  /// Calls `visit(address)` once for each cache line of `LineBytes` bytes that pull<cx, cy, cz>
  /// reads, at the first of its words the pull reads there, `row` and `run` as for pull (runs
  /// line-aligned, rows no longer than a line). The set of lines is worked out at compile time.
  /// StreamCollide::update_block hints these lines for a block a few ahead: the pulls of a D3Q19
  /// block read about 180 lines, 100 of them in the neighbour blocks (docs/performance.md §6.30).
  template <int cx, int cy, int cz, class Word, int LineBytes, class Run, class Visit>
  KOKKOS_FORCEINLINE_FUNCTION static void for_each_pulled_line(const block_index_t* row, const Run& run,
                                                               const Visit& visit) {
    constexpr int line_words = LineBytes / int(sizeof(Word));
    constexpr int count = pulled_lines<cx, cy, cz>(line_words).count;
    visit_lines<cx, cy, cz, line_words>(row, run, visit, std::make_integer_sequence<int, count>{});
  }

  /// The converse of pull: the value of voxel l + c = tile[l] for every voxel l of the block;
  /// `run(block)` points at the run of the component written in `block`.
  template <int cx, int cy, int cz, class Word, class Run>
  static void push(const block_index_t* row, const Run& run, const Word* tile) {
    push_rows<cx, cy, cz>(row, run, tile, std::make_integer_sequence<int, rows>{});
  }

 private:
  /// Rows a tile store writes: as many as fill the 32 bytes (an AVX register) a vectorised
  /// collision loop reads the tile with, 2 at most; one without vector extensions.
  template <class Word>
  static constexpr int rows_per_store = (KARMAN_VECTOR_SHUFFLE != 0 && rows % 2 == 0 && 2 * B * int(sizeof(Word)) <= 32)
                                            ? 2
                                            : 1;

  /// A row of the block at (0, oy, oz) from this one.
  struct BlockRow {
    int oy, oz, row;
  };
  /// The row at (y + dy, z + dz) from row r = (y, z) of this block.
  template <int dy, int dz>
  static constexpr BlockRow row_at(int r) {
    const int y = r % B + dy, z = r / B + dz;
    const int oy = side(y), oz = side(z);
    return {oy, oz, (y - oy * B) + B * (z - oz * B)};
  }

  /// The distinct (neighbour direction, line of its run) pairs a pull reads, each with the first
  /// word read there.
  struct PulledLines {
    int count = 0;
    int direction[2 * rows] = {};
    int word[2 * rows] = {};
    constexpr void add(int dir, int first_word, int line_words) {
      for (int k = 0; k < count; ++k) {
        if (direction[k] == dir && word[k] / line_words == first_word / line_words) return;
      }
      direction[count] = dir;
      word[count] = first_word;
      ++count;
    }
  };
  /// The lines pull<cx, cy, cz> reads: each tile row's source row in its block, and with cx ≠ 0
  /// the same row in the x-neighbour of that block.
  template <int cx, int cy, int cz>
  static constexpr PulledLines pulled_lines(int line_words) {
    PulledLines lines;
    for (int r = 0; r < rows; ++r) {
      const BlockRow from = row_at<-cy, -cz>(r);
      lines.add(shape::direction(0, from.oy, from.oz), B * from.row, line_words);
      if (cx != 0) lines.add(shape::direction(-cx, from.oy, from.oz), B * from.row, line_words);
    }
    return lines;
  }
  template <int cx, int cy, int cz, int line_words, class Run, class Visit, int... k>
  KOKKOS_FORCEINLINE_FUNCTION static void visit_lines(const block_index_t* row, const Run& run, const Visit& visit,
                                                      std::integer_sequence<int, k...>) {
    constexpr PulledLines lines = pulled_lines<cx, cy, cz>(line_words);
    (visit(run(row[lines.direction[k]]) + lines.word[k]), ...);
  }

  template <int cx, int cy, int cz, class Word, class Run, int... r>
  static void push_rows(const block_index_t* row, const Run& run, const Word* tile, std::integer_sequence<int, r...>) {
    (push_row<cx, cy, cz, r>(row, run, tile), ...);
  }

  /// Tile row r to the row at (y + cy, z + cz), shifted by cx, the value that leaves it along x
  /// to the x-neighbour block. By rows: a run shifted by cx would also write the x-edge slots of
  /// the rows beside, which the blocks beside this one push to in the same step.
  template <int cx, int cy, int cz, int r, class Word, class Run>
  static void push_row(const block_index_t* row, const Run& run, const Word* tile) {
    constexpr BlockRow to = row_at<cy, cz>(r);
    Word* mid = run(row[shape::direction(0, to.oy, to.oz)]) + to.row * B;
    Word* edge = run(row[shape::direction(cx, to.oy, to.oz)]) + to.row * B;
    for (int x = 0; x < B; ++x) {
      const int at = x + cx;
      if (at < 0 || at >= B) {
        edge[at - cx * B] = tile[r * B + x];
      } else {
        mid[at] = tile[r * B + x];
      }
    }
  }

  template <int cx, int cy, int cz, class Word, class Run, int... store>
  KOKKOS_FORCEINLINE_FUNCTION static void pull_rows(const block_index_t* row, const Run& run, Word* tile,
                                                    std::integer_sequence<int, store...>) {
    (pull_store<cx, cy, cz, store>(row, run, tile), ...);
  }

#if KARMAN_VECTOR_SHUFFLE
  /// One and two rows of a block as one vector.
  template <class Word>
  struct RowVectors {
    typedef Word one __attribute__((vector_size(sizeof(Word) * B)));
    typedef Word two __attribute__((vector_size(2 * sizeof(Word) * B)));
  };

  /// Row r of the tile pulled by c, in `out`.
  template <int cx, int cy, int cz, int r, class Word, class Run>
  KOKKOS_FORCEINLINE_FUNCTION static void load_row(const block_index_t* row, const Run& run,
                                                   typename RowVectors<Word>::one& out) {
    constexpr BlockRow from = row_at<-cy, -cz>(r);
    std::memcpy(&out, run(row[shape::direction(0, from.oy, from.oz)]) + from.row * B, sizeof out);
    if constexpr (cx != 0) {
      typename RowVectors<Word>::one edge;
      std::memcpy(&edge, run(row[shape::direction(-cx, from.oy, from.oz)]) + from.row * B, sizeof edge);
      shift<cx>(edge, out, std::make_integer_sequence<int, B>{});
    }
  }

  /// Each row of `rows` (one or two rows of B lanes) shifted by cx along x (row[x] = row[x - cx]),
  /// the value that enters taken from the same row of the x-neighbour block, `edge`: lanes of
  /// the pair (rows, edge) numbered 0 .. 2 * lanes - 1. One in-lane shuffle for two FP32 rows
  /// (AVX2's vpalignr). Vectors pass by reference only: one returned by value changes the
  /// calling convention with the instruction set (GCC's -Wpsabi).
  template <int cx, class Vector, int... lane>
  KOKKOS_FORCEINLINE_FUNCTION static void shift(const Vector& edge, Vector& rows, std::integer_sequence<int, lane...>) {
    rows = __builtin_shufflevector(rows, edge, shifted_lane(lane, cx, int(sizeof...(lane)))...);
  }
  static constexpr int shifted_lane(int lane, int cx, int lanes) {
    const int first = lane / B * B, from = lane % B - cx;
    return from < 0 ? lanes + first + B - 1 : (from >= B ? lanes + first : first + from);
  }

  /// Stores tile rows [store * per_store, (store + 1) * per_store) in one store.
  template <int cx, int cy, int cz, int store, class Word, class Run>
  KOKKOS_FORCEINLINE_FUNCTION static void pull_store(const block_index_t* row, const Run& run, Word* tile) {
    constexpr int per_store = rows_per_store<Word>;
    constexpr int r = store * per_store;
    if constexpr (per_store == 1) {
      typename RowVectors<Word>::one one;
      load_row<cx, cy, cz, r, Word>(row, run, one);
      std::memcpy(tile + r * B, &one, sizeof one);
    } else {
      constexpr BlockRow first = row_at<-cy, -cz>(r), second = row_at<-cy, -cz>(r + 1);
      typename RowVectors<Word>::two pair;
      constexpr bool consecutive = first.oy == second.oy && first.oz == second.oz && second.row == first.row + 1;
      if constexpr (consecutive) {
        // Two consecutive rows of one block: one load, and with cx != 0 one more of the same two
        // rows in the x-neighbour block and one shuffle.
        std::memcpy(&pair, run(row[shape::direction(0, first.oy, first.oz)]) + first.row * B, sizeof pair);
        if constexpr (cx != 0) {
          typename RowVectors<Word>::two edge;
          std::memcpy(&edge, run(row[shape::direction(-cx, first.oy, first.oz)]) + first.row * B, sizeof edge);
          shift<cx>(edge, pair, std::make_integer_sequence<int, 2 * B>{});
        }
      } else {
        typename RowVectors<Word>::one a, b;
        load_row<cx, cy, cz, r, Word>(row, run, a);
        load_row<cx, cy, cz, r + 1, Word>(row, run, b);
        join(a, b, pair, std::make_integer_sequence<int, 2 * B>{});
      }
      std::memcpy(tile + r * B, &pair, sizeof pair);
    }
  }

  /// out = a's lanes then b's.
  template <class Vector, class Pair, int... lane>
  KOKKOS_FORCEINLINE_FUNCTION static void join(const Vector& a, const Vector& b, Pair& out,
                                               std::integer_sequence<int, lane...>) {
    out = __builtin_shufflevector(a, b, lane...);
  }
#else
  /// Without vector extensions a store is a row (rows_per_store), written value by value.
  template <int cx, int cy, int cz, int r, class Word, class Run>
  KOKKOS_FORCEINLINE_FUNCTION static void pull_store(const block_index_t* row, const Run& run, Word* tile) {
    constexpr BlockRow from = row_at<-cy, -cz>(r);
    const Word* in = run(row[shape::direction(0, from.oy, from.oz)]) + from.row * B;
    const Word* edge = run(row[shape::direction(-cx, from.oy, from.oz)]) + from.row * B;
    for (int x = 0; x < B; ++x) {
      const int at = x - cx;
      tile[r * B + x] = at < 0 ? edge[B - 1] : (at >= B ? edge[0] : in[at]);
    }
  }
#endif

  /// Which block along an axis a local coordinate off the block by at most one lands in.
  static constexpr int side(int coordinate) { return coordinate < 0 ? -1 : (coordinate >= B ? 1 : 0); }
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
