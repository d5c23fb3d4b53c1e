// What a stencil code needs besides the halo plan, on slabs and blocks of 1, 2 and 3 cut axes:
// the global coordinates of local voxels inside a kernel, and the shared voxels to run after
// the halo exchange as two ranges.
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/global_coordinates.hpp>
#include <karman/core/shared_ranges.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <array>
#include <type_traits>
#include <vector>

namespace {

using namespace karman;

static_assert(std::is_trivially_copyable_v<GlobalCoordinates<Extents>> &&
                  std::is_trivially_copyable_v<GlobalCoordinates<CartesianTopology>>,
              "kernels capture GlobalCoordinates by value");

/// Blocks of a 3D box on grids cut along one, two and three axes, and of a 2D box.
std::vector<CartesianPartition> blocks() {
  std::vector<CartesianPartition> out;
  for (const std::array<int, 3> dims : {std::array<int, 3>{1, 1, 1}, {1, 1, 3}, {2, 2, 1}, {2, 2, 2}})
    for (int r = 0; r < dims[0] * dims[1] * dims[2]; ++r)
      out.emplace_back(Extents{9, 8, 7}, dims,
                       std::array<int, 3>{r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1])});
  out.emplace_back(Extents{9, 8, 1}, std::array<int, 3>{3, 2, 1}, std::array<int, 3>{1, 1, 0});
  return out;
}
std::vector<SlabPartition> slabs() {
  return {SlabPartition({6, 5, 8}, 0, 1), SlabPartition({6, 5, 8}, 1, 2), SlabPartition({6, 7, 1}, 2, 3),
          SlabPartition({6, 5, 12}, 1, 2, 2)};
}

/// The coordinates a kernel computes for every local voxel equal the host's origin() +
/// coordinates(v).
template <class Partition>
void expect_global_coordinates(const Partition& p) {
  const auto global = global_coordinates(p);
  const index_t n = p.local().size();
  Kokkos::View<int* [3]> device("coordinates", std::size_t(n));
  Kokkos::parallel_for(
      "global_coordinates", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const index_t v) {
        const Kokkos::Array<int, 3> c = global(v);
        for (int a = 0; a < 3; ++a) device(v, a) = c[a];
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, device);
  const std::array<int, 3> origin = p.origin();
  for (index_t v = 0; v < n; ++v) {
    const std::array<int, 3> local = p.coordinates(v);
    for (int a = 0; a < 3; ++a) {
      ASSERT_EQ(host(v, a), origin[std::size_t(a)] + local[std::size_t(a)]) << "voxel " << v << " axis " << a;
      ASSERT_EQ(global(v, a), host(v, a));
    }
  }
}

TEST(GlobalCoordinates, KernelsSeeTheHostsCoordinatesOnSlabs) {
  for (const SlabPartition& p : slabs()) expect_global_coordinates(p);
}
TEST(GlobalCoordinates, KernelsSeeTheHostsCoordinatesOnBlocks) {
  for (const CartesianPartition& p : blocks()) expect_global_coordinates(p);
}

/// The two ranges hold exactly the shared voxels: every shared group's voxels, nothing else.
template <class Partition>
void expect_shared_ranges(const Partition& p) {
  const std::array<VoxelRange, 2> ranges = shared_ranges(p);
  std::vector<int> seen(std::size_t(p.local().size()), 0);
  for (const VoxelRange& r : ranges) {
    EXPECT_FALSE(r.empty());
    for (index_t v = r.begin; v < r.end; ++v) ++seen[std::size_t(v)];
  }
  EXPECT_LE(ranges[0].end, ranges[1].begin);
  for (int g = 0; g < p.groups().size(); ++g) {
    const bool shared = p.groups()[g].role == GroupRole::shared;
    for (index_t v = p.group(g).begin; v < p.group(g).end; ++v)
      ASSERT_EQ(seen[std::size_t(v)], shared ? 1 : 0) << p.groups().describe(g) << ", voxel " << v;
  }
}

TEST(SharedRanges, AreTheSharedGroupsOfASlab) {
  for (const SlabPartition& p : slabs()) expect_shared_ranges(p);
}
TEST(SharedRanges, AreTheSharedCellsOfABlock) {
  for (const CartesianPartition& p : blocks()) expect_shared_ranges(p);
}

}  // namespace
