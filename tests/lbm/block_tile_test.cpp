// The CPU launch by blocks of the block-sparse grid (block_tile.hpp, for_each_block.hpp): a
// tile's pull and push move every voxel's value from and to the neighbour BlockNeighbours
// names, and the pull's prefetch hints name the lines it reads, for every stencil offset in 2D
// and 3D; the stream-collide kernel runs by blocks exactly where it may (non-boundary blocks,
// layouts whose blocks hold each component as one run). That the updates equal the dense
// grid's bitwise is SparseSolver.SameFieldsAsDenseBitwise.
#include <karman/core/layouts.hpp>
#include <karman/core/sparse/block_neighbours.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/core/sparse/for_each_block.hpp>
#include <karman/lbm/block_tile.hpp>
#include <karman/lbm/block_walls.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/moment_transforms.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

/// Pulls and pushes every block of a periodic box of 3 blocks along each axis (so the blocks
/// on either side of a block differ) for every offset c, against BlockNeighbours, with words of
/// type Word (whose width sets how many rows a tile store writes).
template <int Dim, int B, class Word>
void expect_tiles_follow_neighbours() {
  using Grid = BlockSparseGrid<Dim, B, Kokkos::HostSpace>;
  using Shape = BlockShape<Dim, B>;
  const Extents box{3 * B, 3 * B, Dim == 3 ? 3 * B : 1};
  const Grid grid(
      "tile_grid", box, {true, true, Dim == 3}, [](int, int, int) { return true; },
      [](int, int, int) { return false; });
  const auto& view = grid.view();
  ASSERT_EQ(view.blocks, Dim == 3 ? 27 : 9);
  std::vector<Word> values(std::size_t(view.blocks) * Shape::voxels);
  for (std::size_t v = 0; v < values.size(); ++v) values[v] = Word(v);
  const Word unwritten = Word(-1), pushed_base = Word(20000);  // neither is a voxel index here
  const auto run = [&](block_index_t n) { return values.data() + index_t(n) * Shape::voxels; };
  int checked = 0;
  for (block_index_t b = 0; b < view.blocks; ++b) {
    const block_index_t* row = view.neighbours.data() + index_t(b) * Shape::directions;
    static_for<Shape::directions>([&](auto direction) {
      constexpr int cx = Shape::direction_offset(direction, 0), cy = Shape::direction_offset(direction, 1),
                    cz = Shape::direction_offset(direction, 2);
      const std::string what = "block " + std::to_string(b) + " c (" + std::to_string(cx) + ", " + std::to_string(cy) +
                               ", " + std::to_string(cz) + ")";
      alignas(32) Word tile[Shape::voxels];
      BlockTile<Dim, B>::template pull<cx, cy, cz>(row, run, tile);
      std::set<std::size_t> read_lines;  // lines of 64 bytes from values.data()
      for (int l = 0; l < Shape::voxels; ++l) {
        const BlockNeighbours<Dim, B, Kokkos::HostSpace> n(b, l, view);
        ASSERT_EQ(tile[l], Word(n.at(-cx, -cy, -cz))) << what << " pull into voxel " << l;
        read_lines.insert(std::size_t(n.at(-cx, -cy, -cz)) * sizeof(Word) / 64);
      }
      // The lines the pull's prefetch hints name are those it reads, each once.
      std::vector<std::size_t> hinted;
      BlockTile<Dim, B>::template for_each_pulled_line<cx, cy, cz, Word, 64>(
          row, run, [&](const Word* word) { hinted.push_back(std::size_t(word - values.data()) * sizeof(Word) / 64); });
      ASSERT_EQ(hinted.size(), read_lines.size()) << what << ": lines hinted";
      ASSERT_EQ(std::set<std::size_t>(hinted.begin(), hinted.end()), read_lines) << what << ": lines hinted";
      std::vector<Word> pushed(values.size(), unwritten);
      for (int l = 0; l < Shape::voxels; ++l) tile[l] = Word(pushed_base + l);
      BlockTile<Dim, B>::template push<cx, cy, cz>(
          row, [&](block_index_t n) { return pushed.data() + index_t(n) * Shape::voxels; }, tile);
      for (int l = 0; l < Shape::voxels; ++l) {
        const BlockNeighbours<Dim, B, Kokkos::HostSpace> n(b, l, view);
        ASSERT_EQ(pushed[std::size_t(n.at(cx, cy, cz))], Word(pushed_base + l)) << what << " push from voxel " << l;
      }
      long written = 0;
      for (Word p : pushed) written += p != unwritten;
      ASSERT_EQ(written, Shape::voxels) << what << ": a push writes one value a voxel, nothing else";
      ++checked;
    });
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(checked, view.blocks * Shape::directions);
}

TEST(BlockTile, PullAndPushFollowTheNeighbourTable3D) {
  expect_tiles_follow_neighbours<3, 4, long>();           // a row a store
  expect_tiles_follow_neighbours<3, 4, float>();          // two rows a store
  expect_tiles_follow_neighbours<3, 4, std::uint16_t>();  // two rows a store (16-bit storage)
}

TEST(BlockTile, PullAndPushFollowTheNeighbourTable2D) {
  expect_tiles_follow_neighbours<2, 8, int>();
  expect_tiles_follow_neighbours<2, 8, std::uint16_t>();
  expect_tiles_follow_neighbours<2, 4, float>();
}

TEST(BlockTile, StreamCollideRunsByBlocksWhereItMay) {
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  using N3 = BlockNeighbours<3, 4, Space>;
  using Bulk = Features<false, false>;
  using Walls = Features<true, false>;
  using RestingWalls = Features<true, false, false, false>;
  constexpr auto ab = StepKind::ab_pull;
  // Non-boundary blocks in SoA and in the block-chunked CSoA the sparse grid uses.
  EXPECT_TRUE((StreamCollide<D3Q19, float, SoA, Space, BGK, ab, Bulk, N3>::by_blocks));
  EXPECT_TRUE((StreamCollide<D3Q19, float, CSoA<64>, Space, BGK, StepKind::aa_odd, Bulk, N3>::by_blocks));
  EXPECT_TRUE((StreamCollide<D2Q9, double, CSoA<64>, Space, BGK, ab, Bulk, BlockNeighbours<2, 8, Space>>::by_blocks));
  // Boundary blocks too in the AB update with walls at rest (bounce-back within the tile).
  EXPECT_TRUE((StreamCollide<D3Q19, float, SoA, Space, BGK, ab, RestingWalls, N3>::by_blocks));
  EXPECT_TRUE(
      (StreamCollide<D2Q9, float, CSoA<64>, Space, BGK, ab, RestingWalls, BlockNeighbours<2, 8, Space>>::by_blocks));
  // Not where a block's component is split (a chunk smaller than a block) or interleaved (AoS),
  // not with moving walls or in the AA steps with walls, and not on the dense grid (which runs
  // by rows).
  EXPECT_FALSE((StreamCollide<D3Q19, float, CSoA<32>, Space, BGK, ab, Bulk, N3>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, AoS, Space, BGK, ab, Bulk, N3>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, SoA, Space, BGK, ab, Walls, N3>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, SoA, Space, BGK, StepKind::aa_odd, RestingWalls, N3>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, SoA, Space, BGK, StepKind::aa_even, RestingWalls, N3>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, SoA, Space, BGK, ab, RestingWalls>::by_blocks));
  EXPECT_FALSE((StreamCollide<D3Q19, float, SoA, Space, BGK, ab, Bulk>::by_blocks));
  EXPECT_TRUE((runs_by_blocks<StreamCollide<D3Q19, float, SoA, Space, BGK, ab, Bulk, N3>>));
}

// Bounce-back of a boundary block by tiles (block_walls.hpp): a wall's population comes from the
// voxel's own opposite slot, a solid voxel's is the rest weight, the others stay as pulled; the
// chunks of solid voxels only, and an inlet or outlet voxel, are found.
TEST(BlockWalls, BouncesWallsAndFindsSolidChunksAndOpenBoundaries) {
  using Walls = BlockWalls<16>;  // a 2D block of B = 4: two chunks of 8 voxels
  static_assert(Walls::chunk == 8);
  std::vector<flag_t> flag_words(16, flags::make(CellKind::fluid, 0, 0));
  flag_words[0] = flags::make(CellKind::solid, 0, 0);
  flag_words[1] = flags::make(CellKind::fluid, 0, flag_t(1) << 3);  // x - c_3 is a wall
  flag_words[2] = flags::make(CellKind::fluid, 0, flag_t(1) << 4);  // a wall for another population
  for (int l = 8; l < 16; ++l) flag_words[std::size_t(l)] = flags::make(CellKind::solid, 1, 0);
  std::vector<float> tile(16), own(16);
  for (int l = 0; l < 16; ++l) {
    tile[std::size_t(l)] = 100.0f + float(l);
    own[std::size_t(l)] = 200.0f + float(l);
  }
  Walls::bounce(flag_words.data(), 3, own.data(), 7.0f, tile.data());
  EXPECT_EQ(tile[0], 7.0f) << "a solid voxel collides the rest weights";
  EXPECT_EQ(tile[1], 201.0f) << "bounced: the voxel's own opposite population";
  EXPECT_EQ(tile[2], 102.0f) << "streamed: its wall is in another direction";
  EXPECT_EQ(tile[3], 103.0f);
  for (int l = 8; l < 16; ++l) EXPECT_EQ(tile[std::size_t(l)], 7.0f) << "voxel " << l;

  const Walls walls(flag_words.data());
  EXPECT_EQ(walls.solid_chunks, 2u) << "only the second chunk is all solid";
  EXPECT_FALSE(walls.open);
  flag_words[5] = flags::make(CellKind::pressure_boundary, 2, 0);
  EXPECT_TRUE(Walls(flag_words.data()).open);
  flag_words[5] = flags::make(CellKind::velocity_boundary, 1, 0);
  flag_words[9] = flags::make(CellKind::fluid, 0, 0);
  const Walls inlet(flag_words.data());
  EXPECT_TRUE(inlet.open);
  EXPECT_EQ(inlet.solid_chunks, 0u);
}

}  // namespace
