// Slab partitions: owned slabs tile the global box, groups are consecutive whole planes keyed
// by role and neighbour, halo width included; group tables hold any list of groups up to their
// capacity (a Cartesian block's 53).
#include <karman/core/dense/partition.hpp>

#include <gtest/gtest.h>

namespace {

using namespace karman;

TEST(SlabPartition, UnevenSlabsTileTheBox) {
  for (const Extents box : {Extents{4, 3, 11}, Extents{9, 7, 1}}) {
    const int planes = box.extent(box.dimension() == 3 ? 2 : 1);
    for (int ranks = 1; ranks <= planes / 2; ++ranks) {
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const SlabPartition p(box, r, ranks);
        EXPECT_EQ(p.owned_begin(), next);
        EXPECT_GE(p.owned_planes(), planes / ranks);
        EXPECT_LE(p.owned_planes(), planes / ranks + 1);
        next += p.owned_planes();
      }
      EXPECT_EQ(next, planes);
    }
  }
}

TEST(SlabPartition, GroupsAreConsecutivePlanes) {
  const SlabPartition p(Extents{4, 3, 11}, 1, 3);  // 11 = 4 + 4 + 3 planes
  EXPECT_EQ(p.axis(), 2);
  EXPECT_EQ(p.owned_planes(), 4);
  EXPECT_EQ(p.plane_size(), 12);
  const GroupTable& g = p.groups();
  ASSERT_EQ(g.size(), 5);
  index_t expected_begin = 0;
  for (int k = 0; k < g.size(); ++k) {
    EXPECT_EQ(g.range(k).begin, expected_begin) << g.describe(k);
    expected_begin = g.range(k).end;
  }
  EXPECT_EQ(g.total(), p.local_size());
  // Memory order: halo, shared towards the lower neighbour, interior, shared, halo towards the upper.
  EXPECT_EQ(p.halo_group(p.lower()), 0);
  EXPECT_EQ(p.shared_group(p.lower()), 1);
  EXPECT_EQ(p.interior_group(), 2);
  EXPECT_EQ(p.shared_group(p.upper()), 3);
  EXPECT_EQ(p.halo_group(p.upper()), 4);
  EXPECT_EQ(p.lower(), NeighbourStep::along(2, -1));
  EXPECT_EQ(p.upper(), NeighbourStep::along(2, +1));
  EXPECT_EQ(g[0].role, GroupRole::halo);
  EXPECT_EQ(g[1].role, GroupRole::shared);
  EXPECT_EQ(g[2].towards, NeighbourStep{});
  EXPECT_EQ(p.group(p.halo_group(p.lower())).size(), 12);
  EXPECT_EQ(p.group(p.shared_group(p.lower())).size(), 12);
  EXPECT_EQ(p.group(p.interior_group()).size(), 24);
  EXPECT_EQ(p.group(p.halo_group(p.upper())).size(), 12);
  EXPECT_EQ(g.describe(4), "halo +z");
  EXPECT_EQ(p.owned().size(), 48);
}

TEST(SlabPartition, TwoDimensionalBoxesCutAlongY) {
  const SlabPartition p(Extents{9, 7, 1}, 0, 2);
  EXPECT_EQ(p.axis(), 1);
  EXPECT_EQ(p.plane_size(), 9);
  EXPECT_EQ(p.owned_planes(), 4);
  EXPECT_EQ(p.local().ny, 6);
}

TEST(Extents, SlabAxisAndPlaneSize) {
  EXPECT_EQ((Extents{4, 3, 11}.slab_axis()), 2);
  EXPECT_EQ((Extents{4, 3, 11}.plane_size()), 12);
  EXPECT_EQ((Extents{9, 7, 1}.slab_axis()), 1);
  EXPECT_EQ((Extents{9, 7, 1}.plane_size()), 9);
  // A partition cuts along the box's slab axis; its local box keeps the plane size.
  for (const Extents box : {Extents{4, 3, 11}, Extents{9, 7, 1}}) {
    const SlabPartition p(box, 1, 2);
    EXPECT_EQ(p.axis(), box.slab_axis());
    EXPECT_EQ(p.plane_size(), box.plane_size());
    EXPECT_EQ(p.local().plane_size(), box.plane_size());
  }
}

TEST(SlabPartition, HaloWidthIsAParameter) {
  // Width 2: two halo and two shared planes a side; the local box grows by 4 planes.
  const SlabPartition p(Extents{5, 3, 12}, 1, 2, 2);
  EXPECT_EQ(p.halo_width(), 2);
  EXPECT_EQ(p.owned_planes(), 6);
  EXPECT_EQ(p.local().nz, 10);
  EXPECT_EQ(p.group(p.halo_group(p.lower())).size(), 30);
  EXPECT_EQ(p.group(p.shared_group(p.upper())).size(), 30);
  EXPECT_EQ(p.group(p.interior_group()).size(), 30);
  EXPECT_EQ(p.owned(), (VoxelRange{30, 120}));  // 6 owned planes after 2 halo planes
  EXPECT_EQ(p.groups().total(), p.local_size());
  // Each rank needs 2 * width planes: 12 planes hold 3 ranks of width 2, not 4.
  EXPECT_NO_THROW(SlabPartition(Extents{5, 3, 12}, 2, 3, 2));
  EXPECT_THROW(SlabPartition(Extents{5, 3, 12}, 0, 4, 2), Error);
  EXPECT_THROW(SlabPartition(Extents{5, 3, 12}, 0, 1, 0), Error);
}

TEST(GroupTable, HoldsACartesianBlocksFiftyThreeGroups) {
  // A Cartesian block's groups: a halo group per neighbour, a shared group per face, edge and
  // corner, one interior; keyed by (role, step), consecutive in the order added.
  GroupTable t;
  index_t voxels = 0;
  for (int i = 0; i < NeighbourStep::count; ++i) {
    const NeighbourStep s = NeighbourStep::from_index(i);
    if (s.none()) continue;
    EXPECT_EQ(s.index(), i);
    t.add(GroupRole::halo, s, 7);
    t.add(GroupRole::shared, s, 3);
    voxels += 10;
  }
  t.add(GroupRole::interior, {}, 100);
  EXPECT_EQ(t.size(), 53);
  EXPECT_EQ(t.total(), voxels + 100);
  const NeighbourStep corner{{1, -1, 1}};
  const int g = t.at(GroupRole::shared, corner);
  EXPECT_EQ(t[g].towards, corner);
  EXPECT_EQ(t.range(g).size(), 3);
  EXPECT_EQ(t.describe(g), "shared +x-y+z");
  EXPECT_EQ(t.find(GroupRole::interior, corner), -1);
  EXPECT_THROW(t.at(GroupRole::interior, corner), Error);
  EXPECT_THROW(t.add(GroupRole::halo, corner, 1), Error);  // a second halo towards +x-y+z
  EXPECT_THROW(t.range(53), Error);
  EXPECT_EQ(corner.opposite(), (NeighbourStep{{-1, 1, -1}}));
}

TEST(GroupTable, RefusesMoreGroupsThanItsCapacity) {
  GroupTable t;
  for (int k = 0; k < GroupTable::capacity; ++k) {
    // Distinct keys: both roles towards every step (the zero step twice: halo and shared).
    const NeighbourStep s = NeighbourStep::from_index(k % NeighbourStep::count);
    t.add(k < NeighbourStep::count       ? GroupRole::halo
          : k < 2 * NeighbourStep::count ? GroupRole::shared
                                         : GroupRole::interior,
          s, 1);
  }
  EXPECT_EQ(t.size(), GroupTable::capacity);
  EXPECT_THROW(t.add(GroupRole::interior, NeighbourStep{{1, 1, 1}}, 1), Error);
}

TEST(SlabPartition, RefusesSlabsThinnerThanTwoPlanes) {
  EXPECT_THROW(SlabPartition(Extents{4, 4, 5}, 0, 3), Error);
  EXPECT_THROW(SlabPartition(Extents{0, 4, 5}), Error);
  EXPECT_THROW(SlabPartition(Extents{4, 4, 8}, 4, 4), Error);
}

}  // namespace
