// CartesianNeighbours: every neighbour of every voxel of a Cartesian block is the voxel its
// coordinates name (wrapping round the local box as Neighbours does), on the host and in a
// kernel; on a slab grid the answers are Neighbours' own.
#include <karman/core/cartesian/cartesian_neighbours.hpp>
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <array>

namespace {

using namespace karman;

struct Grid {
  Extents box;
  std::array<int, 3> dims;
  std::array<int, 3> coords;
  int halo_width = 1;
};

const Grid grids[] = {{{6, 5, 7}, {2, 2, 2}, {1, 0, 1}},     {{6, 5, 7}, {2, 2, 1}, {0, 1, 0}},
                      {{6, 5, 9}, {1, 1, 3}, {0, 0, 1}},     {{8, 6, 4}, {3, 1, 2}, {2, 0, 0}},
                      {{9, 8, 10}, {2, 2, 2}, {0, 1, 1}, 2}, {{7, 6, 1}, {2, 2, 1}, {1, 1, 0}},
                      {{4, 6, 1}, {2, 1, 1}, {0, 0, 0}}};

template <int Dim>
void check(const CartesianPartition& p) {
  const CartesianTopology t = CartesianTopology::of(p);
  const Extents& l = p.local();
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const CartesianNeighbours<Dim> n(p.index(x, y, z), t);
        for (int cz = (Dim == 3 ? -1 : 0); cz <= (Dim == 3 ? 1 : 0); ++cz)
          for (int cy = -1; cy <= 1; ++cy)
            for (int cx = -1; cx <= 1; ++cx) {
              const int wx = (x + cx + l.nx) % l.nx, wy = (y + cy + l.ny) % l.ny, wz = (z + cz + l.nz) % l.nz;
              ASSERT_EQ(n.at(cx, cy, cz), p.index(wx, wy, wz))
                  << "voxel (" << x << ", " << y << ", " << z << ") step (" << cx << ", " << cy << ", " << cz << ")";
            }
      }
}

TEST(CartesianNeighbours, EveryStepLandsOnItsVoxel) {
  for (const Grid& g : grids) {
    const CartesianPartition p(g.box, g.dims, g.coords, g.halo_width);
    if (g.box.dimension() == 3)
      check<3>(p);
    else
      check<2>(p);
  }
}

TEST(CartesianNeighbours, ASlabGridAnswersAsNeighbours) {
  const Extents box{5, 4, 9};
  const CartesianPartition c(box, {1, 1, 3}, {0, 0, 1});
  const SlabPartition s(box, 1, 3);
  const CartesianTopology t = CartesianTopology::of(c);
  const VoxelRange owned = s.owned();
  for (index_t v = owned.begin; v < owned.end; ++v) {
    const CartesianNeighbours<3> a(v, t);
    const Neighbours<3> b(v, s.local());
    for (int q = 0; q < 27; ++q)
      ASSERT_EQ(a.at(q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1), b.at(q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1));
  }
}

/// The sum of every voxel's 27 neighbour indices over the local box, computed in a kernel
/// (device memory on GPU builds). A free function: CUDA lambdas may not live in GoogleTest's
/// private TestBody.
index_t neighbour_sum_in_kernel(const CartesianTopology& t, index_t voxels) {
  index_t sum = 0;
  Kokkos::parallel_reduce(
      "karman::test::cartesian_neighbours", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(0, voxels),
      KOKKOS_LAMBDA(const index_t v, index_t& partial) {
        const CartesianNeighbours<3> n(v, t);
        for (int q = 0; q < 27; ++q) partial += n.at(q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1);
      },
      sum);
  return sum;
}

TEST(CartesianNeighbours, RunsInAKernel) {
  const CartesianPartition p({6, 5, 7}, {2, 2, 2}, {1, 1, 0});
  const CartesianTopology t = CartesianTopology::of(p);
  index_t host = 0;
  for (index_t v = 0; v < p.local_size(); ++v) {
    const CartesianNeighbours<3> n(v, t);
    for (int q = 0; q < 27; ++q) host += n.at(q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1);
  }
  EXPECT_EQ(neighbour_sum_in_kernel(t, p.local_size()), host);
}

}  // namespace
