// The exchange before AA's even step on Cartesian blocks (lbm/aa_return_plan.hpp), against the
// reversed odd-step plan on slabs and between two neighbouring blocks.
#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/lbm/aa_return_plan.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <vector>

namespace {

using namespace karman;
using karman::lbm::aa_return_plan;
using Velocities = std::vector<std::array<int, 3>>;

/// D3Q27: every step of {-1, 0, 1}^3; D3Q19: those of at most two non-zero components. Only
/// the set matters here, not the order the lattices use.
Velocities velocities(int max_nonzero) {
  Velocities out;
  for (int z = -1; z <= 1; ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x)
        if (std::abs(x) + std::abs(y) + std::abs(z) <= max_nonzero) out.push_back({x, y, z});
  return out;
}
const Velocities d3q19 = velocities(2);
const Velocities d3q27 = velocities(3);

/// Transfers as (group, voxels, first component, neighbour index), the voxels resolved.
std::vector<std::array<index_t, 5>> resolved(const std::vector<HaloTransfer>& ts, const CartesianPartition& p) {
  std::vector<std::array<index_t, 5>> out;
  for (const HaloTransfer& t : ts) {
    const VoxelRange v = transfer_voxels(t, p.groups());
    out.push_back({t.group, v.begin, v.end, t.components.begin, t.neighbour.index()});
  }
  return out;
}

// AA's even exchange returns only what a block's odd step wrote: on slabs all of its halo (the
// reversed odd plan), on blocks less, paired cell by cell with the neighbour's receives.
TEST(AaReturnPlan, SendsWhatTheBlockWrote) {
  const Extents slab_box{6, 5, 9};
  for (int r = 0; r < 3; ++r) {
    const CartesianPartition slab(slab_box, {1, 1, 3}, {0, 0, r});
    for (const Velocities* v : {&d3q19, &d3q27}) {
      const HaloPlan back = reversed(cartesian_halo_plan(slab, *v, true)), plan = aa_return_plan(slab, *v);
      EXPECT_EQ(resolved(plan.sends, slab), resolved(back.sends, slab));
      EXPECT_EQ(resolved(plan.receives, slab), resolved(back.receives, slab));
    }
  }
  const Extents box{8, 8, 8};
  const CartesianPartition a(box, {2, 2, 2}, {0, 0, 0}), b(box, {2, 2, 2}, {1, 0, 0});
  const NeighbourStep up_x = NeighbourStep::along(0, 1);
  for (const Velocities* v : {&d3q19, &d3q27}) {
    const HaloPlan pa = aa_return_plan(a, *v), pb = aa_return_plan(b, *v);
    std::vector<std::array<index_t, 2>> sent, received;  // (component, voxels) in message order
    for (const HaloTransfer& t : pa.sends)
      if (t.neighbour == up_x) sent.push_back({t.components.begin, transfer_voxels(t, a.groups()).size()});
    for (const HaloTransfer& t : pb.receives)
      if (t.neighbour == up_x.opposite()) received.push_back({t.components.begin, b.group(t.group).size()});
    EXPECT_EQ(sent, received);
    // The +x face halo of a 4^3 block holds 3 x 3 cells of 1, 2 and 1 layers in y and z (16
    // voxels): a population moving along x alone was written in all of them, one also moving
    // along y or z not in the cells of the first or last layer it comes from (12 voxels).
    index_t values = 0;
    for (const auto& [q, n] : sent) values += n;
    EXPECT_EQ(values, v == &d3q19 ? 16 + 4 * 12 : 16 + 4 * 12 + 4 * 9);
  }
}

TEST(AaReturnPlan, NeedsHaloWidthOne) {
  const CartesianPartition wide({8, 8, 8}, {2, 1, 1}, {0, 0, 0}, 2);
  EXPECT_THROW(aa_return_plan(wide, d3q19), Error);
}

}  // namespace
