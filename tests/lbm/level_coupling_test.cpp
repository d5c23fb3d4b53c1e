// The coupling tables of a refined grid (level_coupling.hpp) name, for every population of every
// leaf voxel and both sub-steps, the sources the reference step (refined_reference.hpp) pulls
// from: the table's where it has an entry, the uniform pull from x - c_i where it has none, and
// entries on the leaves next to a level jump only.
#include "refined_reference.hpp"

#include <karman/core/refined/refined_grid.hpp>
#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/d3q27.hpp>
#include <karman/lbm/level_coupling.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace karman;
using karman::test::refined_patch;
using karman::test::RefinedReference;

template <class L, int B>
void expect_reference_sources(const RefinedLevels<L::D>& levels, const std::string& what) {
  constexpr int Dim = L::D;
  using Grid = RefinedGrid<Dim, B>;
  const Grid grid("coupling", levels);
  const lbm::LevelCoupling<L, B> coupling(levels, grid);
  const RefinedReference<L> reference(levels, lbm::RelaxationParams{});

  std::map<std::tuple<int, index_t, int, int>, std::vector<lbm::CoupledSource>> table;
  std::size_t entries = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    const auto& sources = coupling.sources(l);
    for (const lbm::CoupledPull& pull : coupling.pulls(l)) {
      ASSERT_LE(std::size_t(pull.first) + pull.count, sources.size()) << what;
      for (int s = 0; s < 2; ++s) {
        if (!((pull.substeps >> s) & 1)) continue;
        const auto key = std::make_tuple(l, pull.voxel, pull.population, s);
        ASSERT_EQ(table.count(key), 0u) << what << ": a pull listed twice";
        table[key] = {sources.begin() + pull.first, sources.begin() + pull.first + pull.count};
        ++entries;
      }
    }
  }
  const auto voxel_of = [&](int level, const std::array<int, 3>& at) {
    const block_index_t b = grid.block_at(level, {at[0] / B, at[1] / B, at[2] / B});
    EXPECT_NE(b, absent_block) << what << ": no block on level " << level;
    return index_t(b) * Grid::shape_type::voxels + Grid::shape_type::local_index(at[0] % B, at[1] % B, at[2] % B);
  };
  const auto level_of = [](lbm::CoupledState state, int l) {
    return state == lbm::CoupledState::coarser                                                 ? l + 1
           : state == lbm::CoupledState::finer_half || state == lbm::CoupledState::finer_start ? l - 1
                                                                                               : l;
  };
  std::size_t checked = 0, coupled_voxels = 0;
  for (int l = 0; l < reference.levels(); ++l) {
    const Extents& box = reference.box(l);
    for (index_t v = 0; v < box.size(); ++v) {
      if (!reference.leaf(l, v)) continue;
      const std::array<int, 3> x{box.coordinate(v, 0), box.coordinate(v, 1), box.coordinate(v, 2)};
      const index_t voxel = voxel_of(l, x);
      const block_index_t block = grid.block_at(l, {x[0] / B, x[1] / B, x[2] / B});
      bool coupled = false;
      for (int i = 0; i < L::Q; ++i) {
        for (int s = 0; s < 2; ++s) {
          std::vector<lbm::CoupledSource> expected;
          for (const auto& source : reference.sources(l, x, i, s))
            expected.push_back({source.state, voxel_of(level_of(source.state, l), source.at)});
          const auto found = table.find(std::make_tuple(l, voxel, i, s));
          if (found != table.end()) {
            ASSERT_EQ(found->second, expected)
                << what << ": level " << l << " voxel " << v << " population " << i << " sub-step " << s;
            ASSERT_EQ(grid.role(l, block), RefinedBlockRole::leaf_at_jump) << what << ": level " << l << " voxel " << v;
            coupled = true;
            ++checked;
          } else {
            // No entry: the uniform pull from x - c_i on the own level.
            std::array<int, 3> p = x;
            for (int a = 0; a < Dim; ++a) {
              const int n = box.extent(a);
              p[std::size_t(a)] = ((p[std::size_t(a)] - L::c(i, a)) % n + n) % n;
            }
            ASSERT_EQ(expected.size(), 1u) << what << ": level " << l << " voxel " << v << " population " << i;
            ASSERT_EQ(expected[0], (lbm::CoupledSource{lbm::CoupledState::own, voxel_of(l, p)}))
                << what << ": level " << l << " voxel " << v << " population " << i << " sub-step " << s;
          }
        }
      }
      coupled_voxels += coupled;
    }
  }
  EXPECT_EQ(checked, entries) << what << ": entries for voxels that are no leaves";
  EXPECT_GT(coupled_voxels, 0u) << what;
}

TEST(LevelCoupling, NamesTheReferenceSourcesOnEveryLevel) {
  expect_reference_sources<lbm::D2Q9, 2>(refined_patch<2>({16, 16, 1}, 2, 3, {30.0, 27.0, 0.0}, 9.0),
                                         "2D, three levels");
  expect_reference_sources<lbm::D2Q9, 4>(refined_patch<2>({16, 16, 1}, 4, 3, {40.0, 20.0, 0.0}, 6.0),
                                         "2D, blocks of 4");
  expect_reference_sources<lbm::D3Q19, 2>(refined_patch<3>({8, 8, 8}, 2, 2, {7.0, 9.0, 8.0}, 4.0),
                                          "3D D3Q19, two levels");
  expect_reference_sources<lbm::D3Q27, 2>(refined_patch<3>({8, 8, 8}, 2, 3, {14.0, 17.0, 16.0}, 5.0),
                                          "3D D3Q27, three levels");
}

/// A patch against the side x = 0 of a box closed along x: the paths that would leave the box
/// come back reversed (half-way bounce-back), and only on voxels within two steps of the side.
TEST(LevelCoupling, BouncesPathsOffAClosedSide) {
  constexpr int B = 2;
  const auto levels = refined_patch<2>({16, 16, 1}, B, 2, {1.0, 30.0, 0.0}, 5.0, {false, true, true});
  const RefinedGrid<2, B> grid("closed", levels);
  const lbm::LevelCoupling<lbm::D2Q9, B> coupling(levels, grid);
  std::size_t reversed = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    for (const lbm::CoupledPull& pull : coupling.pulls(l)) {
      for (std::uint32_t k = 0; k < pull.count; ++k) {
        if (!coupling.sources(l)[pull.first + k].reversed) continue;
        ++reversed;
        const auto origin = grid.level(l).origin(block_index_t(pull.voxel / (B * B)));
        const int x = origin[0] + int(pull.voxel % (B * B)) % B;
        // Two steps of level l back from x (explosion), or of level l - 1 from x's children
        // (coalescence), reach past x = 0.
        EXPECT_LT(x, 2) << "level " << l << " voxel " << pull.voxel << " population " << pull.population;
      }
    }
  }
  EXPECT_GT(reversed, 0u);
}

}  // namespace
