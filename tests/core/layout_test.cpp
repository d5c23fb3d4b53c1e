// Properties of every layout mapping: bijection onto the storage, contiguous
// messaging blocks, unit stride along voxels where the layout promises it.
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace karman;

// Odd sizes on purpose: nothing divides the CSoA chunk or the rank count.
const std::vector<Extents> odd_boxes = {{5, 3, 7}, {7, 11, 1}, {3, 5, 13}};
const std::vector<int> cardinalities = {1, 3, 9, 19, 27};

std::vector<GroupTable> tables_for(const Extents& box) {
  std::vector<GroupTable> tables = {GroupTable::single(box.size())};
  const int planes = box.extent(box.dimension() == 3 ? 2 : 1);
  for (int ranks = 1; ranks <= planes / 2; ranks += 2) {
    for (int rank = 0; rank < ranks; ++rank) tables.push_back(SlabPartition(box, rank, ranks).groups());
  }
  if (planes >= 4) tables.push_back(SlabPartition(box, 0, 1, 2).groups());  // halo width 2
  return tables;
}

template <class Layout>
class LayoutTest : public ::testing::Test {};

using AllLayouts = ::testing::Types<AoS, SoA, CSoA<1>, CSoA<4>, CSoA<32>, Disaggregated>;
TYPED_TEST_SUITE(LayoutTest, AllLayouts);

TYPED_TEST(LayoutTest, OffsetIsInjectiveIntoStorage) {
  for (const auto& box : odd_boxes) {
    for (const auto& groups : tables_for(box)) {
      for (int q_count : cardinalities) {
        typename TypeParam::mapping map(groups, q_count);
        std::vector<int> hits(static_cast<std::size_t>(map.size()), 0);
        for (index_t v = 0; v < groups.total(); ++v) {
          for (int q = 0; q < q_count; ++q) {
            const index_t off = map.offset(v, q);
            ASSERT_GE(off, 0);
            ASSERT_LT(off, map.size()) << TypeParam::name << " v=" << v << " q=" << q;
            ++hits[static_cast<std::size_t>(off)];
          }
        }
        EXPECT_EQ(*std::max_element(hits.begin(), hits.end()), 1) << TypeParam::name << ": two values share a slot";
        // CSoA pads storage to whole chunks, SoA each component to its padded stride and
        // Disaggregated its interior group's (fewer than 64 values each); AoS maps onto [0, size).
        const auto used = std::count(hits.begin(), hits.end(), 1);
        EXPECT_EQ(used, groups.total() * q_count);
        EXPECT_LT(map.size() - used, index_t(q_count) * 64) << "padding larger than a component's";
      }
    }
  }
}

// Kernels resolve a voxel's group span once and reuse it for every voxel of that group
// (stream_collide.hpp's plane spans): the element must be the one the plain accessor names.
TYPED_TEST(LayoutTest, GroupSpanAccessNamesTheSameElement) {
  for (const auto& box : odd_boxes) {
    for (const auto& groups : tables_for(box)) {
      Field<double, TypeParam, Kokkos::HostSpace> f("f", groups, 19);
      for (int g = 0; g < groups.size(); ++g) {
        const VoxelRange r = groups.range(g);
        if (r.empty()) continue;
        const auto span = f.span_of(r.begin);
        for (index_t v = r.begin; v < r.end; ++v) {
          for (int q = 0; q < f.components(); ++q) {
            ASSERT_EQ(&f(span, v, q), &f(v, q))
                << TypeParam::name << " group " << groups.describe(g) << " v=" << v << " q=" << q;
          }
        }
      }
    }
  }
  EXPECT_EQ(has_group_span_v<TypeParam>, (std::is_same_v<TypeParam, Disaggregated>));
}

TYPED_TEST(LayoutTest, BlocksCoverExactlyTheRequestedValues) {
  const Extents box{5, 3, 7};
  const SlabPartition part(box, 1, 3);
  const auto groups = part.groups();
  for (int q_count : {9, 19}) {
    typename TypeParam::mapping map(groups, q_count);
    for (int g = 0; g < groups.size(); ++g) {
      for (ComponentRange comps :
           {ComponentRange{0, q_count}, ComponentRange{0, q_count / 3}, ComponentRange{q_count / 3, q_count}}) {
        std::multiset<index_t> expected, from_blocks;
        for (index_t v = groups.range(g).begin; v < groups.range(g).end; ++v)
          for (int q = comps.begin; q < comps.end; ++q) expected.insert(map.offset(v, q));
        for (const auto& b : map.blocks(groups.range(g), comps))
          for (index_t i = 0; i < b.count; ++i) from_blocks.insert(b.offset + i);
        EXPECT_EQ(expected, from_blocks) << TypeParam::name << " group " << groups.describe(g);
      }
    }
  }
}

// What messages carry, a halo or shared group's component range, is one block; the interior
// group, never sent, has SoA's padded component stride and so one block per component.
TEST(Disaggregated, EveryGroupComponentRangeIsOneBlock) {
  for (const auto& box : odd_boxes) {
    for (const auto& groups : tables_for(box)) {
      for (int q_count : cardinalities) {
        Disaggregated::mapping map(groups, q_count);
        for (int g = 0; g < groups.size(); ++g) {
          const index_t size = groups.range(g).size();
          if (size == 0) continue;
          const bool interior = groups[g].role == GroupRole::interior;
          for (int lo = 0; lo < q_count; ++lo) {
            for (int hi = lo + 1; hi <= q_count; ++hi) {
              const auto blocks = map.blocks(groups.range(g), {lo, hi});
              ASSERT_EQ(blocks.size(), interior ? std::size_t(hi - lo) : 1u)
                  << "group " << groups.describe(g) << " components [" << lo << "," << hi << ")";
              EXPECT_EQ(blocks[0].count, interior ? size : size * (hi - lo));
              if (interior) {
                EXPECT_EQ(map.span_of(groups.range(g).begin).stride, SoA::padded_stride(size));
              }
            }
          }
        }
      }
    }
  }
}

// A Cartesian block's 53 groups (26 halo, 26 shared by face, edge and corner, one interior)
// fit the default Disaggregated layout: each halo or shared (group, component range) is one
// block, and the offsets of all groups fill the storage but for the interior's padding; the
// slab's five-group layout refuses them.
TEST(Disaggregated, HoldsACartesianBlocksGroups) {
  GroupTable groups;
  for (int i = 0; i < NeighbourStep::count; ++i) {
    const NeighbourStep s = NeighbourStep::from_index(i);
    if (s.none()) continue;
    groups.add(GroupRole::halo, s, 1 + i % 4);
    groups.add(GroupRole::shared, s, 2 + i % 3);
  }
  groups.add(GroupRole::interior, {}, 40);
  ASSERT_EQ(groups.size(), 53);
  const int q_count = 19;
  Disaggregated::mapping map(groups, q_count);
  std::set<index_t> offsets;
  for (int g = 0; g < groups.size(); ++g) {
    const auto blocks = map.blocks(groups.range(g), {3, 11});
    const bool interior = groups[g].role == GroupRole::interior;
    ASSERT_EQ(blocks.size(), interior ? 8u : 1u) << groups.describe(g);
    EXPECT_EQ(blocks[0].count, groups.range(g).size() * (interior ? 1 : 8));
    for (index_t v = groups.range(g).begin; v < groups.range(g).end; ++v) {
      ASSERT_EQ(map.group_of(v), g);
      for (int q = 0; q < q_count; ++q) offsets.insert(map.offset(v, q));
    }
  }
  EXPECT_EQ(index_t(offsets.size()), groups.total() * q_count);
  EXPECT_LT(*offsets.rbegin(), map.size());
  EXPECT_EQ(map.size() - groups.total() * q_count, (SoA::padded_stride(40) - 40) * q_count);
  EXPECT_THROW(SlabDisaggregated::mapping(groups, q_count), Error);
}

// The default Disaggregated field is built on every block of the grids a 3D box is cut into,
// from one rank to eight (5, 17 and 53 groups), not only on the slab's five groups, and looks
// up the group of every voxel right.
TEST(Disaggregated, DefaultHoldsEveryPartition) {
  for (const std::array<int, 3> dims : {std::array<int, 3>{1, 1, 1}, {1, 1, 4}, {2, 2, 1}, {2, 2, 2}}) {
    for (int r = 0; r < dims[0] * dims[1] * dims[2]; ++r) {
      const CartesianPartition p({8, 8, 8}, dims, {r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1])});
      const Field<double, Disaggregated, Kokkos::HostSpace> f("f", p.groups(), 7);
      for (int g = 0; g < p.groups().size(); ++g)
        for (index_t v = p.group(g).begin; v < p.group(g).end; ++v) ASSERT_EQ(f.mapping().group_of(v), g);
    }
  }
}

// A table past any partition's groups is refused with the layout it needs.
TEST(Disaggregated, TooManyGroupsNamesTheLayoutNeeded) {
  GroupTable groups;
  for (int i = 0; i < NeighbourStep::count; ++i) {
    groups.add(GroupRole::halo, NeighbourStep::from_index(i), 2);
    groups.add(GroupRole::shared, NeighbourStep::from_index(i), 2);
  }
  ASSERT_EQ(groups.size(), 54);
  try {
    Disaggregated::mapping(groups, 3);
    FAIL() << "54 groups accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs BasicDisaggregated<54> or larger"), std::string::npos) << e.what();
  }
}

// The binary search past 8 groups finds what comparing with every group's first voxel finds,
// empty groups (which share their first voxel with the next) anywhere, capacity left unused.
TEST(Disaggregated, LookupFindsTheGroupWithEmptyGroupsAnywhere) {
  for (int count : {1, 2, 9, 13, 53}) {
    for (int empty_every : {2, 3, 5, 100}) {
      GroupTable groups;
      for (int g = 0; g < count; ++g) {
        const index_t size = g % empty_every == 1 ? 0 : 1 + g % 3;
        const GroupRole role = g + 1 == count ? GroupRole::interior : g < 27 ? GroupRole::halo : GroupRole::shared;
        groups.add(role, g + 1 == count ? NeighbourStep{} : NeighbourStep::from_index(g % 27),
                   g + 1 == count && size == 0 ? 1 : size);
      }
      const BasicDisaggregated<53>::mapping big(groups, 2);
      for (int g = 0; g < groups.size(); ++g)
        for (index_t v = groups.range(g).begin; v < groups.range(g).end; ++v)
          ASSERT_EQ(big.group_of(v), g) << count << " groups, voxel " << v;
    }
  }
}

// The component stride never lets the 2Q streams of an update share a 4 KiB offset: an odd
// number of 32-value steps, at least the voxel count, less than 64 values of padding.
TEST(SoA, PaddedStrideSpreadsComponentsOverCacheSets) {
  for (index_t voxels : {index_t(1), index_t(15), index_t(16), index_t(32), index_t(1024), index_t(128 * 128 * 130),
                         index_t(256) * 256 * 258, index_t(4096) * 4098}) {
    const index_t stride = SoA::padded_stride(voxels);
    EXPECT_GE(stride, voxels);
    EXPECT_LT(stride - voxels, 64);
    EXPECT_EQ(stride % 32, 0);
    EXPECT_EQ(stride / 32 % 2, 1) << voxels;
    // Float components: the start of component q, modulo 4 KiB, falls in a different 128-byte
    // pair of cache lines for every q < 27.
    std::set<index_t> sets;
    for (int q = 0; q < 27; ++q) sets.insert(q * stride * index_t(sizeof(float)) % 4096 / 128);
    EXPECT_EQ(sets.size(), 27u) << voxels;
  }
}

TEST(SoA, OneBlockPerComponent) {
  const SlabPartition part(Extents{5, 3, 7}, 0, 2);
  SoA::mapping map(part.groups(), 19);
  EXPECT_EQ(map.blocks(part.group(part.shared_group(part.upper())), {14, 19}).size(), 5u);
}

TEST(AoS, WholeVoxelsAreOneBlock) {
  const SlabPartition part(Extents{5, 3, 7}, 0, 2);
  AoS::mapping map(part.groups(), 19);
  EXPECT_EQ(map.blocks(part.group(part.shared_group(part.upper())), {0, 19}).size(), 1u);
}

// Unit stride along voxels of one component: SoA everywhere, CSoA inside a chunk,
// Disaggregated inside a group. AoS has stride Q.
TEST(Stride, ConsecutiveVoxelsOfOneComponent) {
  for (const auto& box : odd_boxes) {
    for (const auto& groups : tables_for(box)) {
      const int q_count = 19;
      SoA::mapping soa(groups, q_count);
      CSoA<4>::mapping csoa(groups, q_count);
      Disaggregated::mapping dis(groups, q_count);
      AoS::mapping aos(groups, q_count);
      for (int q = 0; q < q_count; ++q) {
        for (index_t v = 0; v + 1 < groups.total(); ++v) {
          EXPECT_EQ(soa.offset(v + 1, q), soa.offset(v, q) + 1);
          EXPECT_EQ(aos.offset(v + 1, q), aos.offset(v, q) + q_count);
          if ((v + 1) % 4 != 0) {
            EXPECT_EQ(csoa.offset(v + 1, q), csoa.offset(v, q) + 1);
          }
          if (dis.group_of(v) == dis.group_of(v + 1)) {
            EXPECT_EQ(dis.offset(v + 1, q), dis.offset(v, q) + 1);
          }
        }
      }
    }
  }
}

TEST(Field, RejectsBadCardinalityWithRange) {
  try {
    Field<double, SoA> f("f", GroupTable::single(10), 0);
    FAIL() << "Q = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "karman::Field: cardinality Q = 0 out of range [1, 27]");
  }
  Field<double, Disaggregated> f("f", GroupTable::single(10), 3);
  EXPECT_THROW(f.blocks(0, {2, 4}), Error);
}

}  // namespace
