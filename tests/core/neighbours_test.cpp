// Neighbour access against coordinates computed the slow way: in-plane axes wrap, the slab
// axis runs into the halo planes, in 3D boxes and in 2D boxes (slab axis y).
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>

#include <gtest/gtest.h>

namespace {

using namespace karman;

/// Voxels of the owned planes whose neighbour (cx, cy, cz) differs from the one found through
/// coordinates, counted in a kernel. A free function: CUDA lambdas may not live in
/// GoogleTest's private TestBody.
template <int Dim>
index_t count_mismatches(const SlabPartition& part) {
  const Extents local = part.local();
  const VoxelRange owned = part.owned();
  index_t mismatches = 0;
  Kokkos::parallel_reduce(
      "neighbours", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(owned.begin, owned.end),
      KOKKOS_LAMBDA(index_t v, index_t & bad) {
        const Neighbours<Dim> nb(v, local);
        const int x = int(v % local.nx), y = int(v / local.nx % local.ny), z = int(v / local.plane_size());
        for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz) {
          for (int cy = -1; cy <= 1; ++cy) {
            for (int cx = -1; cx <= 1; ++cx) {
              const int xn = (x + cx + local.nx) % local.nx;
              // In 3D y wraps and z crosses planes; in 2D y is the slab axis and crosses rows.
              const index_t expected =
                  Dim == 3 ? local.index(xn, (y + cy + local.ny) % local.ny, z + cz) : local.index(xn, y + cy, 0);
              if (nb.at(cx, cy, cz) != expected || nb.voxel() != v) ++bad;
            }
          }
        }
      },
      mismatches);
  return mismatches;
}

TEST(Neighbours, ThreeDimensionalSlab) {
  for (const Extents box : {Extents{5, 4, 9}, Extents{1, 3, 6}, Extents{2, 1, 4}}) {
    for (int rank = 0; rank < 2; ++rank) {
      const SlabPartition part(box, rank, 2);
      EXPECT_EQ(count_mismatches<3>(part), 0) << box.nx << "x" << box.ny << "x" << box.nz << " rank " << rank;
    }
  }
}

TEST(Neighbours, TwoDimensionalSlab) {
  for (const Extents box : {Extents{7, 6, 1}, Extents{1, 4, 1}}) {
    const SlabPartition part(box);
    EXPECT_EQ(count_mismatches<2>(part), 0) << box.nx << "x" << box.ny;
  }
}

TEST(Neighbours, SlabAxisStepIsOnePlane) {
  const SlabPartition part(Extents{5, 4, 9});
  const Extents local = part.local();
  const index_t v = local.index(4, 3, 1);  // a corner of the first owned plane
  const Neighbours<3> nb(v, local);
  EXPECT_EQ(nb.at(0, 0, -1), v - local.plane_size());
  EXPECT_EQ(nb.at(0, 0, 1), v + local.plane_size());
  EXPECT_EQ(nb.at(1, 1, 0), local.index(0, 0, 1));
  EXPECT_EQ(nb.at(1, 1, -1), local.index(0, 0, 0)) << "the corner's neighbour below is in the lower halo";
}

}  // namespace
