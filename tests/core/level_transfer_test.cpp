// Restriction between refined levels (level_transfer.hpp): each overlap voxel gathers its 2^Dim
// children, weighted, once per call; leaf voxels and overlap voxels whose children are refined
// further stay as they are.
#include <karman/core/field.hpp>
#include <karman/core/refined/level_transfer.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>

#include "../common/expect_error.hpp"
#include "random_refinement.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {

using namespace karman;
using Host = Kokkos::HostSpace;

/// A value for every component of every voxel, different everywhere: of the voxel's coordinates in
/// its level and the component.
double value(const std::array<int, 3>& g, int c, double shift) {
  return g[0] + 64.0 * g[1] + 4096.0 * g[2] + 0.25 * c + shift;
}

template <int Dim, int B>
void expect_gathered(const RefinedLevels<Dim>& levels, const std::string& what) {
  using Grid = RefinedGrid<Dim, B, Host>;
  using Shape = BlockShape<Dim, B>;
  using LevelField = Field<double, typename Grid::level_grid::block_layout, Host>;
  constexpr int components = 3;
  const Grid grid("refined", levels);
  const Kokkos::DefaultHostExecutionSpace space;
  const double weight = 1.0 / (2 * (1 << Dim));
  int gathered = 0;
  for (int l = 1; l < grid.levels(); ++l) {
    if (grid.empty(l) || grid.empty(l - 1)) continue;
    const auto& cg = grid.level(l);
    const auto& fg = grid.level(l - 1);
    const LevelField coarse("coarse", cg.group_table(), components), fine("fine", fg.group_table(), components);
    const auto coordinates = [](const auto& g, index_t v) {
      const auto b = block_index_t(v / Shape::voxels);
      const int local = int(v % Shape::voxels);
      std::array<int, 3> x = g.origin(b);
      for (int a = 0; a < Dim; ++a) x[std::size_t(a)] += Shape::local_coordinate(local, a);
      return x;
    };
    for (index_t v = 0; v < cg.voxel_count(); ++v)
      for (int c = 0; c < components; ++c) coarse(v, c) = 1.0;
    // Two fine sub-steps: the fine values, then the same plus one.
    for (double shift : {0.0, 1.0}) {
      for (index_t v = 0; v < fg.voxel_count(); ++v)
        for (int c = 0; c < components; ++c) fine(v, c) = value(coordinates(fg, v), c, shift);
      accumulate_children(space, grid, l, coarse, fine, weight);
      space.fence();
    }
    for (index_t v = 0; v < cg.voxel_count(); ++v) {
      const auto b = block_index_t(v / Shape::voxels);
      const std::array<int, 3> g = coordinates(cg, v);
      // The children, where all are stored on the finer level.
      bool all = grid.role(l, b) == RefinedBlockRole::overlap;
      std::array<std::array<int, 3>, 1 << Dim> children{};
      for (int k = 0; k < (1 << Dim) && all; ++k) {
        std::array<int, 3> f{2 * g[0] + (k & 1), 2 * g[1] + ((k >> 1) & 1), Dim == 3 ? 2 * g[2] + (k >> 2) : 0};
        children[std::size_t(k)] = f;
        all = grid.block_at(l - 1, {f[0] / B, f[1] / B, f[2] / B}) != absent_block;
      }
      for (int c = 0; c < components; ++c) {
        double expected = 1.0;
        if (all) {
          for (double shift : {0.0, 1.0})
            for (const auto& f : children) expected += weight * value(f, c, shift);
        }
        ASSERT_NEAR(coarse(v, c), expected, 1e-9 * expected) << what << " level " << l << " voxel " << v;
      }
      gathered += all;
    }
  }
  EXPECT_GT(gathered, 0) << what << ": no overlap voxel gathered its children";
}

TEST(LevelTransfer, OverlapVoxelsGatherTheirChildren) {
  for (bool periodic : {false, true}) {
    const std::string what = periodic ? "periodic" : "closed";
    expect_gathered<3, 4>(
        RefinedLevels<3>({12, 8, 8}, 4, {periodic, periodic, periodic}, 3, test::RandomRefinement{4, 3}), "3D " + what);
    expect_gathered<2, 8>(
        RefinedLevels<2>({32, 24, 1}, 8, {periodic, periodic, false}, 3, test::RandomRefinement{4, 3}), "2D " + what);
  }
}

TEST(LevelTransfer, RefusesTheFinestLevel) {
  using Grid = RefinedGrid<3, 4, Host>;
  const Grid grid("refined", RefinedLevels<3>({8, 8, 8}, 4, {false, false, false}, 2,
                                              [](int, const LevelBlockCoordinates& at) { return at[0] == 0; }));
  using LevelField = Field<double, Grid::level_grid::block_layout, Host>;
  const LevelField f("f", grid.level(0).group_table(), 1);
  test::expect_error([&] { accumulate_children(Kokkos::DefaultHostExecutionSpace(), grid, 0, f, f, 1.0); },
                     {"level 0 has no finer level", "1 to 1"});
}

}  // namespace
