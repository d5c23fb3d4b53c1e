// Cartesian partitions: blocks tile the global box, every local voxel has one index, groups are
// consecutive cells keyed by role and step, a 1×1×N grid is SlabPartition exactly, and the
// neighbour lists and message counts of D3Q19, D3Q27 and D2Q9 are Meneghin & Mahmoud's
// generalised to faces, edges and corners.
#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/for_each.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace {

using namespace karman;
using Velocities = std::vector<std::array<int, 3>>;

/// D3Q27: every step of {-1, 0, 1}^3; D3Q19: those of at most two non-zero components; D2Q9:
/// the planar ones. Only the set matters here, not the order the lattices use.
Velocities velocities(int dimension, int max_nonzero) {
  Velocities out;
  for (int z = dimension == 3 ? -1 : 0; z <= (dimension == 3 ? 1 : 0); ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x)
        if (std::abs(x) + std::abs(y) + std::abs(z) <= max_nonzero) out.push_back({x, y, z});
  return out;
}
const Velocities d3q19 = velocities(3, 2);
const Velocities d3q27 = velocities(3, 3);
const Velocities d2q9 = velocities(2, 2);

/// Number of non-zero components of a step: 1 face, 2 edge, 3 corner.
int kind(const NeighbourStep& s) { return std::abs(s.d[0]) + std::abs(s.d[1]) + std::abs(s.d[2]); }

/// The step a local coordinate lies towards: -1 below the owned layers, +1 above, 0 inside; for
/// owned coordinates (owned_only), -1 first layer, +1 last layer.
NeighbourStep step_of(const CartesianPartition& p, const std::array<int, 3>& x, bool owned_only) {
  NeighbourStep s;
  for (int a = 0; a < 3; ++a) {
    const auto k = p.class_of(a, x[a]);
    if (owned_only)
      s.d[a] = k == CartesianPartition::first_layer ? -1 : k == CartesianPartition::last_layer ? 1 : 0;
    else
      s.d[a] = k == CartesianPartition::lower_halo ? -1 : k == CartesianPartition::upper_halo ? 1 : 0;
  }
  return s;
}

struct Grid {
  Extents box;
  std::array<int, 3> dims;
  int halo_width = 1;
};

const Grid grids[] = {{{6, 5, 7}, {2, 2, 2}},     {{6, 5, 7}, {2, 2, 1}},   {{6, 5, 9}, {1, 1, 3}},
                      {{8, 6, 4}, {3, 1, 2}},     {{7, 6, 1}, {2, 2, 1}},   {{7, 6, 1}, {3, 1, 1}},
                      {{9, 8, 10}, {2, 2, 2}, 2}, {{9, 9, 1}, {2, 2, 1}, 2}};

TEST(CartesianPartition, BlocksTileTheBoxAndGroupsHoldTheirCells) {
  for (const Grid& grid : grids) {
    const Extents& box = grid.box;
    std::vector<int> owners(std::size_t(box.size()), 0);
    const int ranks = grid.dims[0] * grid.dims[1] * grid.dims[2];
    for (int r = 0; r < ranks; ++r) {
      const std::array<int, 3> coords{r % grid.dims[0], r / grid.dims[0] % grid.dims[1],
                                      r / (grid.dims[0] * grid.dims[1])};
      const CartesianPartition p(box, grid.dims, coords, grid.halo_width);
      EXPECT_EQ(p.rank(), r);
      const GroupTable& g = p.groups();
      EXPECT_EQ(g.total(), p.local_size());
      EXPECT_LE(g.size(), 53);
      std::vector<int> seen(std::size_t(p.local_size()), 0);
      const Extents& l = p.local();
      for (int z = 0; z < l.nz; ++z)
        for (int y = 0; y < l.ny; ++y)
          for (int x = 0; x < l.nx; ++x) {
            const std::array<int, 3> at{x, y, z};
            const index_t v = p.index(x, y, z);
            ASSERT_GE(v, 0);
            ASSERT_LT(v, p.local_size());
            ++seen[std::size_t(v)];
            const NeighbourStep halo = step_of(p, at, false);
            int group = 0;
            while (!(v >= g.range(group).begin && v < g.range(group).end)) ++group;
            if (!halo.none()) {
              EXPECT_EQ(group, p.halo_group(halo)) << "box " << box.nx << "x" << box.ny << "x" << box.nz;
              continue;
            }
            const NeighbourStep cell = step_of(p, at, true);
            EXPECT_EQ(group, cell.none() ? p.interior_group() : p.shared_group(cell));
            ++owners[std::size_t(box.index(p.owned_begin(0) + x - p.halo(0), p.owned_begin(1) + y - p.halo(1),
                                           p.owned_begin(2) + z - p.halo(2)))];
          }
      for (const int n : seen) EXPECT_EQ(n, 1);
    }
    for (const int n : owners) EXPECT_EQ(n, 1);
  }
}

TEST(CartesianPartition, HaloGroupsHoldTheSharedCellsOfTheNeighbourInOrder) {
  const Extents box{6, 5, 7};
  const CartesianPartition lower(box, {2, 2, 2}, {0, 0, 0});
  for (const NeighbourStep& s : lower.steps()) {
    index_t sent = 0;
    for (const int g : lower.shared_groups_towards(s)) sent += lower.group(g).size();
    EXPECT_EQ(sent, lower.group(lower.halo_group(s)).size()) << to_string(s);
    // The neighbour s away (inside the grid where s only moves up) has a halo group facing
    // back of the same size, although its blocks are thinner along y (5 = 3 + 2).
    if (s.d[0] >= 0 && s.d[1] >= 0 && s.d[2] >= 0) {
      const CartesianPartition neighbour(box, {2, 2, 2}, {s.d[0], s.d[1], s.d[2]});
      EXPECT_EQ(sent, neighbour.group(neighbour.halo_group(s.opposite())).size()) << to_string(s);
    }
  }
  // Sizes: owned 3 × 3 × 4 (x: 6 = 3 + 3, y: 5 = 3 + 2, z: 7 = 4 + 3), one halo layer.
  EXPECT_EQ(lower.group(lower.halo_group(NeighbourStep::along(0, -1))).size(), 3 * 4);
  EXPECT_EQ(lower.group(lower.halo_group(NeighbourStep::along(2, 1))).size(), 3 * 3);
  EXPECT_EQ(lower.group(lower.halo_group({{1, 1, 0}})).size(), 4);
  EXPECT_EQ(lower.group(lower.halo_group({{1, 1, 1}})).size(), 1);
  EXPECT_EQ(lower.shared_groups_towards(NeighbourStep::along(0, 1)).size(), 9u);
  EXPECT_EQ(lower.shared_groups_towards({{1, -1, 0}}).size(), 3u);
  EXPECT_EQ(lower.group(lower.interior_group()).size(), 1 * 1 * 2);
  EXPECT_EQ(lower.groups().size(), 53);
}

TEST(CartesianPartition, ASlabGridIsTheSlabPartition) {
  for (const Extents box : {Extents{4, 3, 11}, Extents{9, 7, 1}}) {
    const int axis = box.slab_axis(), planes = box.extent(axis);
    for (int ranks = 1; ranks <= planes / 2; ++ranks) {
      for (int r = 0; r < ranks; ++r) {
        std::array<int, 3> dims{1, 1, 1}, coords{0, 0, 0};
        dims[axis] = ranks;
        coords[axis] = r;
        const CartesianPartition c(box, dims, coords);
        const SlabPartition s(box, r, ranks);
        EXPECT_EQ(c.groups(), s.groups());
        EXPECT_EQ(c.local(), s.local());
        EXPECT_EQ(c.owned_begin(axis), s.owned_begin());
        EXPECT_EQ(c.steps().size(), 2u);
        for (index_t v = 0; v < c.local_size(); ++v) {
          const Extents& l = c.local();
          ASSERT_EQ(c.index(l.coordinate(v, 0), l.coordinate(v, 1), l.coordinate(v, 2)), v);
        }
      }
    }
  }
}

TEST(CartesianPartition, OnlyCrossingPopulationsMove) {
  const CartesianPartition block({8, 8, 8}, {2, 2, 2}, {0, 1, 0});
  EXPECT_EQ(block.steps().size(), 26u);
  // D3Q19 has no corner population: 6 faces of 5 populations and 12 edges of 1.
  EXPECT_EQ(crossing_neighbours(block, d3q19).size(), 18u);
  EXPECT_EQ(crossing_neighbours(block, d3q27).size(), 26u);
  for (const NeighbourStep& s : block.steps()) {
    const int expected19[] = {0, 5, 1, 0}, expected27[] = {0, 9, 3, 1};
    EXPECT_EQ(int(crossing_populations(d3q19, s).size()), expected19[kind(s)]) << to_string(s);
    EXPECT_EQ(int(crossing_populations(d3q27, s).size()), expected27[kind(s)]) << to_string(s);
  }
  const CartesianPartition square({8, 8, 1}, {2, 2, 1}, {1, 1, 0});
  ASSERT_EQ(square.steps().size(), 8u);
  EXPECT_EQ(crossing_neighbours(square, d2q9).size(), 8u);
  EXPECT_EQ(crossing_populations(d2q9, {{1, 0, 0}}).size(), 3u);
  EXPECT_EQ(crossing_populations(d2q9, {{-1, 1, 0}}).size(), 1u);
}

/// Values a block sends per exchange: crossing populations times the voxels of the shared cells.
index_t values_sent(const HaloPlan& plan, const CartesianPartition& p) {
  index_t n = 0;
  for (const HaloTransfer& t : plan.sends) n += p.group(t.group).size() * t.components.size();
  return n;
}

TEST(CartesianPartition, PlansPairSendsWithTheNeighboursReceives) {
  const Extents box{8, 8, 8};
  const CartesianPartition a(box, {2, 2, 2}, {0, 0, 0}), b(box, {2, 2, 2}, {1, 0, 0});
  for (const Velocities* v : {&d3q19, &d3q27}) {
    for (const bool opposite : {false, true}) {
      const HaloPlan pa = cartesian_halo_plan(a, *v, opposite), pb = cartesian_halo_plan(b, *v, opposite);
      // What a sends towards +x, b receives from -x: the same slots, voxel for voxel.
      std::vector<int> sent, received;
      index_t sent_voxels = 0, received_voxels = 0;
      for (const HaloTransfer& t : pa.sends)
        if (t.neighbour == NeighbourStep::along(0, 1)) {
          if (sent.empty() || sent.back() != t.components.begin) sent.push_back(t.components.begin);
          sent_voxels += a.group(t.group).size();
        }
      for (const HaloTransfer& t : pb.receives)
        if (t.neighbour == NeighbourStep::along(0, -1)) {
          received.push_back(t.components.begin);
          received_voxels += b.group(t.group).size();
        }
      EXPECT_EQ(sent, received);
      EXPECT_EQ(sent_voxels, received_voxels);
      EXPECT_EQ(int(sent.size()), v == &d3q19 ? 5 : 9);
    }
    // 4^3 blocks: faces 16 voxels, edges 4, corners 1.
    const index_t faces = 6 * 16, edges = 12 * 4, corners = 8;
    const HaloPlan plan = cartesian_halo_plan(a, *v);
    EXPECT_EQ(values_sent(plan, a), v == &d3q19 ? 5 * faces + edges : 9 * faces + 3 * edges + corners);
  }
}

/// Counts the visits of each voxel.
struct Visit {
  Kokkos::View<int*> visits;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const { visits(v) += 1; }
};

/// for_each takes a block's groups as it takes a slab's: every voxel once over all groups.
TEST(CartesianPartition, ForEachVisitsEveryGroup) {
  const CartesianPartition p({6, 5, 7}, {2, 2, 1}, {1, 0, 0});
  const Kokkos::View<int*> visits("visits", std::size_t(p.local_size()));
  for (int g = 0; g < p.groups().size(); ++g)
    for_each(
        "visit", p, g, Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) { visits(v) += 1; });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
  for (index_t v = 0; v < p.local_size(); ++v) EXPECT_EQ(host(v), 1) << "voxel " << v;
}

TEST(CartesianPartition, RefusesBadGrids) {
  EXPECT_THROW(CartesianPartition({6, 5, 7}, {4, 1, 1}, {0, 0, 0}), Error);  // 6 / 4 < 2 layers
  EXPECT_THROW(CartesianPartition({6, 5, 1}, {1, 1, 2}, {0, 0, 0}), Error);  // 2D cut along z
  EXPECT_THROW(CartesianPartition({6, 5, 7}, {2, 1, 1}, {2, 0, 0}), Error);  // outside the grid
  try {
    CartesianPartition({6, 5, 7}, {1, 3, 1}, {0, 0, 0});
    FAIL() << "5 voxels along y cut into 3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ranks along y = 3 out of range [1, 2]"), std::string::npos) << e.what();
  }
}

}  // namespace
