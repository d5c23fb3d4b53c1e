// One boundary meaning on every grid (issue 55): `periodic` alone decides wrap or wall along an
// axis, cut or not. On one block a closed axis has a halo that no exchange writes and
// fill_closed_halos fills, a periodic one wraps; a stencil code then computes on one rank what
// the whole box computes with walls of the given value or a wrap (the same on several ranks:
// tests/comm/boundary_test.cpp).
#include "../common/boundary_stencil.hpp"

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/periodic_exchange.hpp>

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {

using namespace karman;

const std::array<std::array<bool, 3>, 4> boundaries = {
    {{false, false, false}, {true, true, true}, {false, true, false}, {true, false, true}}};

std::string describe(const std::array<bool, 3>& periodic, StencilReach reach) {
  std::string out;
  for (int a = 0; a < 3; ++a)
    out += std::string(1, "xyz"[a]) + (periodic[std::size_t(a)] ? " periodic, " : " closed, ");
  return out + (reach == StencilReach::faces ? "faces" : "faces, edges and corners");
}

TEST(Boundary, ClosedAxisOfOneBlockHasAHalo) {
  const CartesianPartition closed({6, 5, 7}, {1, 1, 1}, {0, 0, 0}, 1, {false, true, true});
  EXPECT_EQ(closed.halo(0), 1);  // closed: a halo the user fills
  EXPECT_EQ(closed.halo(1), 0);  // periodic and uncut: the kernels wrap
  EXPECT_EQ(closed.halo(2), 1);  // the slab axis: a halo a local copy fills
  EXPECT_TRUE(closed.closed(NeighbourStep::along(0, -1)));
  EXPECT_TRUE(closed.closed(NeighbourStep::along(0, +1)));
  EXPECT_TRUE(closed.closed({{1, 0, 1}}));
  EXPECT_FALSE(closed.closed(NeighbourStep::along(2, +1)));
  EXPECT_FALSE(closed.closed(NeighbourStep::along(1, +1)));  // no halo there: nothing to fill
  // The default keeps the meaning a partition had before it knew `periodic`.
  const CartesianPartition periodic({6, 5, 7}, {1, 1, 1}, {0, 0, 0});
  EXPECT_EQ(periodic.halo(0), 0);
  EXPECT_EQ(periodic.periodic(), (std::array<bool, 3>{true, true, true}));
  EXPECT_FALSE(periodic.closed(NeighbourStep::along(2, -1)));
}

TEST(Boundary, OnlyTheBoxsSidesAreClosed) {
  // The first of two blocks along x: closed below, its neighbour above.
  const CartesianPartition first({6, 5, 7}, {2, 1, 1}, {0, 0, 0}, 1, {false, false, true});
  EXPECT_TRUE(first.closed(NeighbourStep::along(0, -1)));
  EXPECT_FALSE(first.closed(NeighbourStep::along(0, +1)));
  EXPECT_TRUE(first.closed({{1, 1, 0}}));  // past the closed y side
  EXPECT_TRUE(first.closed(NeighbourStep::along(1, +1)));
  const SlabPartition lowest({4, 3, 8}, 0, 2, 1, false), highest({4, 3, 8}, 1, 2, 1, false);
  EXPECT_TRUE(lowest.closed(lowest.lower()));
  EXPECT_FALSE(lowest.closed(lowest.upper()));
  EXPECT_TRUE(highest.closed(highest.upper()));
  EXPECT_FALSE(SlabPartition({4, 3, 8}, 0, 2).closed(SlabPartition({4, 3, 8}, 0, 2).lower()));
}

TEST(Boundary, ThinClosedAxisIsRefused) {
  try {
    CartesianPartition({1, 5, 7}, {1, 1, 1}, {0, 0, 0}, 1, {false, true, true});
    FAIL() << "a closed axis one voxel wide was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 voxels along x give block 0 only 1; each block needs at least 2 along a "
                                         "closed axis (make x periodic, or the box wider)"),
              std::string::npos)
        << e.what();
  }
  // Periodic, the same box wraps inside the kernels as before.
  EXPECT_NO_THROW(CartesianPartition({1, 5, 7}, {1, 1, 1}, {0, 0, 0}, 1, {true, true, true}));
}

TEST(Boundary, FillClosedHalosWritesTheClosedSidesOnly) {
  const SlabPartition slab({4, 3, 6}, 0, 1, 1, false);
  test::StencilField f("f", slab.groups(), 2);
  fill_closed_halos(f, slab, -1.0, Kokkos::DefaultHostExecutionSpace());
  Kokkos::fence();
  const VoxelRange owned = slab.owned();
  for (index_t v = 0; v < slab.local_size(); ++v)
    for (int q = 0; q < 2; ++q) ASSERT_EQ(f(v, q), v >= owned.begin && v < owned.end ? 0.0 : -1.0) << v;
  // A closed side has no transfer: a local periodic copy of the plan leaves it as filled.
  EXPECT_TRUE(stencil_halo_plan(slab, 2, StencilReach::faces).sends.empty());
  const SlabPartition periodic({4, 3, 6});
  test::StencilField g("g", periodic.groups(), 1);
  fill_closed_halos(g, periodic, -1.0, Kokkos::DefaultHostExecutionSpace());
  Kokkos::fence();
  for (index_t v = 0; v < periodic.local_size(); ++v) ASSERT_EQ(g(v, 0), 0.0) << v;
}

// Fails before closed axes had a halo: one block wrapped x and y whatever `periodic` said.
TEST(Boundary, StencilOnOneBlockIsTheWholeBoxs) {
  for (const std::array<bool, 3>& periodic : boundaries) {
    for (const StencilReach reach : {StencilReach::faces, StencilReach::faces_edges_corners}) {
      const Extents box{6, 5, 7}, flat{7, 6, 1};
      PeriodicSelfExchanger<test::StencilField> exchanger{Kokkos::DefaultHostExecutionSpace()};
      const CartesianPartition block(box, {1, 1, 1}, {0, 0, 0}, 1, periodic);
      EXPECT_EQ(test::compare(test::run_on_block<3>(block, exchanger, reach, 3),
                              test::run_on_box<3>(box, periodic, reach, 3)),
                "")
          << "3D, " << describe(periodic, reach);
      const CartesianPartition square(flat, {1, 1, 1}, {0, 0, 0}, 1, periodic);
      EXPECT_EQ(test::compare(test::run_on_block<2>(square, exchanger, reach, 3),
                              test::run_on_box<2>(flat, periodic, reach, 3)),
                "")
          << "2D, " << describe(periodic, reach);
    }
  }
}

}  // namespace
