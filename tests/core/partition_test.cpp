// Slab partitions: owned slabs tile the global box, groups are consecutive whole planes.
#include <karman/core/partition.hpp>

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
  const auto g = p.groups();
  index_t expected_begin = 0;
  for (Group group : all_groups) {
    EXPECT_EQ(g[group].begin, expected_begin) << name(group);
    expected_begin = g[group].end;
  }
  EXPECT_EQ(g.total(), p.local_size());
  EXPECT_EQ(g[Group::halo_lo].size(), 12);
  EXPECT_EQ(g[Group::shared_lo].size(), 12);
  EXPECT_EQ(g[Group::interior].size(), 24);
  EXPECT_EQ(g[Group::halo_hi].size(), 12);
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

TEST(SlabPartition, RefusesSlabsThinnerThanTwoPlanes) {
  EXPECT_THROW(SlabPartition(Extents{4, 4, 5}, 0, 3), Error);
  EXPECT_THROW(SlabPartition(Extents{0, 4, 5}), Error);
  EXPECT_THROW(SlabPartition(Extents{4, 4, 8}, 4, 4), Error);
}

}  // namespace
