// The block-sparse grid against a dense reference built from voxel coordinates: stored blocks,
// neighbour table (2D and 3D, periodic and not, random masks), the boundary classification
// and its two groupings, launches that visit every active voxel once, and fields on the grid.
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/morton.hpp>
#include <karman/core/sparse/block_neighbours.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/core/sparse/for_each_block.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace karman;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

/// A random voxel image: each voxel active with probability `fill`, plus random boundary flags.
struct Sample {
  Extents box;
  std::array<bool, 3> periodic{};
  std::vector<char> active;    ///< per voxel of box, x fastest
  std::vector<char> boundary;  ///< per voxel of box: the caller's boundary classification

  bool is_active(int x, int y, int z) const { return active[std::size_t(box.index(x, y, z))] != 0; }
  bool is_boundary(int x, int y, int z) const { return boundary[std::size_t(box.index(x, y, z))] != 0; }
  /// Active voxel at (x, y, z) + c, wrapping periodic axes; false outside the box.
  bool active_at(int x, int y, int z, const int (&c)[3]) const {
    int p[3] = {x + c[0], y + c[1], z + c[2]};
    for (int a = 0; a < 3; ++a) {
      const int n = box.extent(a);
      if (p[a] < 0 || p[a] >= n) {
        if (!periodic[a]) return false;
        p[a] = (p[a] + n) % n;
      }
    }
    return is_active(p[0], p[1], p[2]);
  }
};

Sample make_sample(Extents box, std::array<bool, 3> periodic, double fill, double boundary_fraction, unsigned seed) {
  Sample s{box, periodic, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  s.active.resize(std::size_t(box.size()));
  s.boundary.resize(std::size_t(box.size()));
  for (std::size_t v = 0; v < s.active.size(); ++v) {
    s.active[v] = u(rng) < fill;
    s.boundary[v] = u(rng) < boundary_fraction;
  }
  return s;
}

template <int Dim, int B>
BlockSparseGrid<Dim, B, Space> make_grid(const Sample& s, BlockGrouping grouping) {
  return BlockSparseGrid<Dim, B, Space>(
      "grid", s.box, s.periodic, [&](int x, int y, int z) { return s.is_active(x, y, z); },
      [&](int x, int y, int z) { return s.is_boundary(x, y, z); }, grouping);
}

/// Voxel index of every voxel of the box (absent_voxel where its block is not stored), on the
/// device: the dense reference a kernel compares against.
template <class Grid>
Kokkos::View<index_t*, Space> dense_index(const Grid& grid) {
  const Extents box = grid.extents();
  Kokkos::View<index_t*, Space> dense("dense", std::size_t(box.size()));
  auto host = Kokkos::create_mirror_view(dense);
  for (int z = 0; z < box.nz; ++z)
    for (int y = 0; y < box.ny; ++y)
      for (int x = 0; x < box.nx; ++x) host(box.index(x, y, z)) = grid.find(x, y, z);
  Kokkos::deep_copy(dense, host);
  return dense;
}

/// Neighbour look-ups of every voxel of every stored block that differ from the reference
/// computed from coordinates, counted in a kernel, through BlockNeighbours' form `Steps`.
template <NeighbourSteps Steps, int Dim, int B>
index_t count_neighbour_mismatches(const BlockSparseGrid<Dim, B, Space>& grid) {
  const auto view = grid.view();
  const auto dense = dense_index(grid);
  const Extents box = grid.extents();
  const bool px = grid.periodic(0), py = grid.periodic(1), pz = grid.periodic(2);
  index_t bad = 0;
  Kokkos::parallel_reduce(
      "neighbour_mismatches", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(0, grid.voxel_count()),
      KOKKOS_LAMBDA(index_t v, index_t & sum) {
        const BlockNeighbours<Dim, B, Space, Steps> nb(v, view);
        if (nb.voxel() != v || nb.block() != view.block_of(v) || nb.local() != view.local_of(v)) ++sum;
        const int x = view.coordinate(v, 0), y = view.coordinate(v, 1), z = view.coordinate(v, 2);
        // Voxels of a partial block past the box's far side are stored but outside the box:
        // they are neither compared nor compared against.
        if (x >= box.nx || y >= box.ny || z >= box.nz) return;
        for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz) {
          for (int cy = -1; cy <= 1; ++cy) {
            for (int cx = -1; cx <= 1; ++cx) {
              int p[3] = {x + cx, y + cy, z + cz};
              const bool periodic[3] = {px, py, pz};
              bool outside = false, in_block_padding = false;
              for (int a = 0; a < 3; ++a) {
                const int n = box.extent(a);
                if (p[a] < 0 || p[a] >= n) {
                  if (periodic[a]) {
                    p[a] = (p[a] + n) % n;
                  } else if (p[a] < 0 || p[a] >= (n + B - 1) / B * B) {
                    outside = true;
                  } else {
                    in_block_padding = true;
                  }
                }
              }
              const index_t expected = outside || in_block_padding ? absent_voxel : dense(box.index(p[0], p[1], p[2]));
              const index_t got = nb.at(cx, cy, cz);
              const BlockVoxel where = nb.locate(cx, cy, cz);
              const index_t located =
                  where.block == absent_block ? absent_voxel : view.voxel_of(where.block, where.local);
              if (!in_block_padding && got != expected) ++sum;
              if (located != got) ++sum;
            }
          }
        }
      },
      bad);
  return bad;
}

/// Checks stored blocks, masks and the neighbour table of one sample.
template <int Dim, int B>
void check_grid(const Sample& s, BlockGrouping grouping, const std::string& what) {
  SCOPED_TRACE(what + " grouping " + std::string(name(grouping)));
  const auto grid = make_grid<Dim, B>(s, grouping);
  // Exactly the blocks with an active voxel are stored, and each voxel's mask bit is its state.
  index_t active = 0;
  for (int z = 0; z < s.box.nz; ++z) {
    for (int y = 0; y < s.box.ny; ++y) {
      for (int x = 0; x < s.box.nx; ++x) {
        active += s.is_active(x, y, z);
        bool block_has_active = false;
        const int x0 = x / B * B, y0 = y / B * B, z0 = Dim == 3 ? z / B * B : 0;
        for (int l = 0; l < BlockShape<Dim, B>::voxels; ++l) {
          const int xx = x0 + BlockShape<Dim, B>::local_coordinate(l, 0);
          const int yy = y0 + BlockShape<Dim, B>::local_coordinate(l, 1);
          const int zz = z0 + BlockShape<Dim, B>::local_coordinate(l, 2);
          if (xx < s.box.nx && yy < s.box.ny && zz < s.box.nz) block_has_active |= s.is_active(xx, yy, zz);
        }
        const index_t v = grid.find(x, y, z);
        ASSERT_EQ(v != absent_voxel, block_has_active) << "voxel " << x << "," << y << "," << z;
        if (v == absent_voxel) continue;
        const auto b = block_index_t(v / BlockShape<Dim, B>::voxels);
        EXPECT_EQ(bool((grid.mask(b) >> (v % BlockShape<Dim, B>::voxels)) & 1u), s.is_active(x, y, z));
        EXPECT_EQ(grid.origin(b)[0], x0);
        EXPECT_EQ(grid.origin(b)[1], y0);
      }
    }
  }
  EXPECT_EQ(grid.active_voxel_count(), active);
  EXPECT_EQ(count_neighbour_mismatches<NeighbourSteps::tables>(grid), 0);
  EXPECT_EQ(count_neighbour_mismatches<NeighbourSteps::side_bits>(grid), 0);
}

TEST(BlockSparseGrid, NeighboursMatchDenseReference3D) {
  unsigned seed = 1;
  for (const Extents box : {Extents{16, 12, 8}, Extents{13, 9, 7}, Extents{4, 4, 4}}) {
    for (const double fill : {0.05, 0.5, 0.97}) {
      for (const bool periodic : {false, true}) {
        if (periodic && (box.nx % 4 || box.ny % 4 || box.nz % 4)) continue;
        const Sample s = make_sample(box, {periodic, periodic, periodic}, fill, 0.0, seed++);
        for (const auto g : {BlockGrouping::memory, BlockGrouping::bitmask}) {
          check_grid<3, 4>(s, g,
                           std::to_string(box.nx) + "x" + std::to_string(box.ny) + "x" + std::to_string(box.nz) +
                               " fill " + std::to_string(fill) + (periodic ? " periodic" : " walled"));
        }
      }
    }
  }
  // Few blocks in a large lattice: stored blocks are looked up by their sorted keys, not a table.
  for (const bool periodic : {false, true}) {
    const Sample s = make_sample({32, 32, 32}, {periodic, periodic, periodic}, 0.0005, 0.0, seed++);
    check_grid<3, 4>(s, BlockGrouping::memory, std::string("sparse lattice") + (periodic ? " periodic" : " walled"));
  }
  // Mixed periodicity and the smallest block.
  check_grid<3, 2>(make_sample({6, 10, 5}, {true, false, false}, 0.4, 0.0, 99), BlockGrouping::memory, "B=2 mixed");
  check_grid<3, 4>(make_sample({8, 7, 12}, {true, false, true}, 0.6, 0.0, 98), BlockGrouping::memory, "xz periodic");
}

TEST(BlockSparseGrid, NeighboursMatchDenseReference2D) {
  unsigned seed = 100;
  for (const Extents box : {Extents{16, 24, 1}, Extents{11, 6, 1}}) {
    for (const double fill : {0.1, 0.6, 1.0}) {
      for (const bool periodic : {false, true}) {
        if (periodic && (box.nx % 8 || box.ny % 8)) continue;
        const Sample s = make_sample(box, {periodic, periodic, false}, fill, 0.0, seed++);
        const std::string what = std::to_string(box.nx) + "x" + std::to_string(box.ny) + " fill " +
                                 std::to_string(fill) + (periodic ? " periodic" : " walled");
        check_grid<2, 4>(s, BlockGrouping::memory, what);
        check_grid<2, 8>(s, BlockGrouping::bitmask, what + " B=8");
      }
    }
  }
}

/// Reference classification of the block at origin `o`: some voxel inactive, or an active
/// voxel flagged boundary or with an inactive (or outside) stencil neighbour.
template <int Dim, int B>
bool reference_boundary(const Sample& s, const std::array<int, 3>& o) {
  for (int l = 0; l < BlockShape<Dim, B>::voxels; ++l) {
    const int x = o[0] + BlockShape<Dim, B>::local_coordinate(l, 0),
              y = o[1] + BlockShape<Dim, B>::local_coordinate(l, 1);
    const int z = o[2] + BlockShape<Dim, B>::local_coordinate(l, 2);
    if (x >= s.box.nx || y >= s.box.ny || z >= s.box.nz || !s.is_active(x, y, z)) return true;
    if (s.is_boundary(x, y, z)) return true;
    for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz)
      for (int cy = -1; cy <= 1; ++cy)
        for (int cx = -1; cx <= 1; ++cx)
          if (!s.active_at(x, y, z, {cx, cy, cz})) return true;
  }
  return false;
}

/// Visits of every voxel by launches over `sets`, counted on the device.
template <int Dim, int B>
std::vector<int> count_visits(const BlockSparseGrid<Dim, B, Space>& grid, std::initializer_list<BlockSet> sets) {
  Kokkos::View<int*, Space> visits("visits", std::size_t(grid.voxel_count()));
  for (const BlockSet set : sets) {
    for_each(
        "visit", grid, set, Kokkos::DefaultExecutionSpace(),
        KOKKOS_LAMBDA(index_t v) { Kokkos::atomic_increment(&visits(v)); });
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
  return std::vector<int>(host.data(), host.data() + host.extent(0));
}

template <int Dim, int B>
void check_grouping(const Sample& s, const std::string& what) {
  SCOPED_TRACE(what);
  const auto memory = make_grid<Dim, B>(s, BlockGrouping::memory);
  const auto bitmask = make_grid<Dim, B>(s, BlockGrouping::bitmask);
  ASSERT_EQ(memory.block_count(), bitmask.block_count());
  EXPECT_EQ(memory.boundary_block_count(), bitmask.boundary_block_count());
  // Memory grouping: boundary blocks form the leading run, and the bit says the same.
  for (block_index_t b = 0; b < memory.block_count(); ++b) {
    EXPECT_EQ(memory.boundary(b), b < memory.boundary_block_count()) << "block " << b;
    EXPECT_EQ(memory.boundary(b), (reference_boundary<Dim, B>(s, memory.origin(b)))) << "block " << b;
    if (!memory.boundary(b)) {
      EXPECT_EQ(memory.mask(b), (BlockShape<Dim, B>::full_mask));
    }
  }
  for (block_index_t b = 0; b < bitmask.block_count(); ++b) {
    EXPECT_EQ(bitmask.boundary(b), (reference_boundary<Dim, B>(s, bitmask.origin(b)))) << "block " << b;
  }
  EXPECT_EQ(memory.span(BlockSet::boundary).size() + memory.span(BlockSet::non_boundary).size(), memory.block_count());
  EXPECT_EQ(bitmask.span(BlockSet::boundary).size(), bitmask.block_count()) << "Table II: bitmask kernels span all";

  // Each launch visits exactly the active voxels of its blocks, once; both groupings agree.
  for (const auto* grid : {&memory, &bitmask}) {
    const auto all = count_visits(*grid, {BlockSet::all});
    const auto split = count_visits(*grid, {BlockSet::boundary, BlockSet::non_boundary});
    const auto boundary_only = count_visits(*grid, {BlockSet::boundary});
    for (index_t v = 0; v < grid->voxel_count(); ++v) {
      const auto b = block_index_t(v / BlockShape<Dim, B>::voxels);
      const int active = int((grid->mask(b) >> (v % BlockShape<Dim, B>::voxels)) & 1u);
      ASSERT_EQ(all[std::size_t(v)], active) << name(grid->grouping()) << " voxel " << v;
      ASSERT_EQ(split[std::size_t(v)], active) << name(grid->grouping()) << " voxel " << v;
      ASSERT_EQ(boundary_only[std::size_t(v)], grid->boundary(b) ? active : 0) << name(grid->grouping());
    }
  }
}

TEST(BlockSparseGrid, BoundaryGroupingAndBitmaskAgree) {
  // Dense enough that non-boundary blocks exist, with a few caller-flagged boundary voxels.
  check_grouping<3, 4>(make_sample({24, 20, 16}, {true, true, true}, 0.9995, 0.0005, 7), "3D periodic");
  check_grouping<3, 4>(make_sample({21, 16, 14}, {false, false, false}, 1.0, 0.001, 8), "3D walled, all active");
  check_grouping<3, 4>(make_sample({16, 16, 16}, {false, true, true}, 0.3, 0.0, 9), "3D sparse");
  check_grouping<2, 4>(make_sample({40, 32, 1}, {true, true, false}, 0.999, 0.002, 10), "2D periodic");
  check_grouping<2, 8>(make_sample({40, 30, 1}, {false, false, false}, 1.0, 0.0, 11), "2D walled B=8");
}

TEST(BlockSparseGrid, MemoryGroupingKeepsSpaceFillingOrderInsideGroups) {
  const Sample s = make_sample({32, 32, 32}, {true, true, true}, 0.9999, 0.0, 12);
  const auto grid = make_grid<3, 4>(s, BlockGrouping::memory);
  ASSERT_GT(grid.boundary_block_count(), 0);
  ASSERT_LT(grid.boundary_block_count(), grid.block_count());
  const auto key = [&](block_index_t b) {
    const auto o = grid.origin(b);
    return detail::morton_key(o[0] / 4, o[1] / 4, o[2] / 4);
  };
  for (block_index_t b = 1; b < grid.block_count(); ++b) {
    if (b == grid.boundary_block_count()) continue;
    EXPECT_LT(key(b - 1), key(b)) << "block " << b;
  }
}

/// Writes a value unique to (voxel coordinates, component) into every active voxel, then sums
/// each active voxel's active neighbours' values through BlockNeighbours: the pull a
/// stream-collide kernel does, written once against `at`.
template <class Layout, int Dim, int B>
void check_field_and_stencil(const Sample& s, const std::string& what) {
  SCOPED_TRACE(what + " layout " + Layout::name);
  using Grid = BlockSparseGrid<Dim, B, Space>;
  const Grid grid = make_grid<Dim, B>(s, BlockGrouping::memory);
  constexpr int Q = 5;
  Field<double, Layout, Space, Q> f("f", grid.group_table());
  Field<double, Layout, Space, Q> pulled("pulled", grid.group_table());
  const auto view = grid.view();
  const auto value = [](int x, int y, int z, int q) { return 1.0e6 * q + x + 1000.0 * y + 1.0e-3 * z; };
  for_each(
      "fill", grid, BlockSet::all, Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < Q; ++q)
          f(v, q) = 1.0e6 * q + view.coordinate(v, 0) + 1000.0 * view.coordinate(v, 1) + 1.0e-3 * view.coordinate(v, 2);
      });
  for_each(
      "pull", grid, BlockSet::all, Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        const BlockNeighbours<Dim, B, Space> nb(v, view);
        for (int q = 0; q < Q; ++q) {
          double sum = 0;
          for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz)
            for (int cy = -1; cy <= 1; ++cy)
              for (int cx = -1; cx <= 1; ++cx) {
                const index_t n = nb.at(cx, cy, cz);
                if (n != absent_voxel && view.active(n)) sum += f(n, q);
              }
          pulled(v, q) = sum;
        }
      });
  auto host_f = create_mirror(f);
  auto host_pulled = create_mirror(pulled);
  deep_copy(host_f, f);
  deep_copy(host_pulled, pulled);
  index_t checked = 0;
  for (int z = 0; z < s.box.nz; ++z) {
    for (int y = 0; y < s.box.ny; ++y) {
      for (int x = 0; x < s.box.nx; ++x) {
        if (!s.is_active(x, y, z)) continue;
        const index_t v = grid.find(x, y, z);
        for (int q = 0; q < Q; ++q) {
          ASSERT_EQ(host_f(v, q), value(x, y, z, q)) << x << "," << y << "," << z << " q " << q;
          double sum = 0;
          for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz)
            for (int cy = -1; cy <= 1; ++cy)
              for (int cx = -1; cx <= 1; ++cx) {
                if (!s.active_at(x, y, z, {cx, cy, cz})) continue;
                const int n[3] = {(x + cx + s.box.nx) % s.box.nx, (y + cy + s.box.ny) % s.box.ny,
                                  (z + cz + s.box.nz) % s.box.nz};
                sum += value(n[0], n[1], n[2], q);
              }
          ASSERT_DOUBLE_EQ(host_pulled(v, q), sum) << x << "," << y << "," << z << " q " << q;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, grid.active_voxel_count());
}

TEST(BlockSparseGrid, FieldsRoundTripAndStencilPulls) {
  const Sample s3 = make_sample({12, 16, 8}, {true, false, true}, 0.7, 0.0, 21);
  check_field_and_stencil<BlockSparseGrid<3, 4, Space>::block_layout, 3, 4>(s3, "3D");
  check_field_and_stencil<SoA, 3, 4>(s3, "3D");
  check_field_and_stencil<AoS, 3, 4>(s3, "3D");
  check_field_and_stencil<Disaggregated, 3, 4>(s3, "3D");
  const Sample s2 = make_sample({17, 12, 1}, {false, true, false}, 0.5, 0.0, 22);
  check_field_and_stencil<BlockSparseGrid<2, 4, Space>::block_layout, 2, 4>(s2, "2D");
  check_field_and_stencil<SoA, 2, 4>(s2, "2D");
}

/// A stencil kernel written once against a neighbour accessor N, as the stream-collide kernel
/// will be: each voxel pulls a weighted sum of its 3^Dim neighbours' values.
template <class N, class FieldType>
struct WeightedPull {
  typename N::topology_type topology;
  FieldType src, dst;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const N nb(v, topology);
    for (int q = 0; q < src.components(); ++q) {
      double sum = 0;
      for (int cz = -1; cz <= 1; ++cz)
        for (int cy = -1; cy <= 1; ++cy)
          for (int cx = -1; cx <= 1; ++cx)
            sum += (cx + 2 + 3 * (cy + 2) + 9 * (cz + 2) + q) * src(nb.at(cx, cy, cz), q);
      dst(v, q) = sum;
    }
  }
};

/// Value of component q at global voxel (x, y, z): integers, so every sum is exact.
KOKKOS_INLINE_FUNCTION double pull_value(int x, int y, int z, int q) { return x + 32.0 * y + 1024.0 * z + 65536.0 * q; }

// A free function, not a test body: nvcc refuses device lambdas inside a private member such
// as a GoogleTest TestBody.
void expect_same_stencil_kernel_as_dense_box() {
  // The dense box of one rank (x, y wrapping; z planes 0 and nz + 1 its halo) and an all-active
  // block-sparse grid over the same local box, periodic in x and y only: the owned voxels of
  // both must pull bitwise-equal sums through the same functor.
  const SlabPartition part(Extents{8, 12, 6});
  const Extents local = part.local();
  using F = Field<double, SoA, Space>;
  using G = Field<double, BlockSparseGrid<3, 4, Space>::block_layout, Space>;
  constexpr int Q = 3;
  F dense_src("dense_src", part.groups(), Q), dense_dst("dense_dst", part.groups(), Q);
  const BlockSparseGrid<3, 4, Space> grid(
      "grid", local, {true, true, false}, [](int, int, int) { return true; }, [](int, int, int) { return false; });
  G sparse_src("sparse_src", grid.group_table(), Q), sparse_dst("sparse_dst", grid.group_table(), Q);
  const auto view = grid.view();
  Kokkos::parallel_for(
      "fill_dense", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(0, local.size()), KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < Q; ++q)
          dense_src(v, q) = pull_value(int(v % local.nx), int(v / local.nx % local.ny), int(v / local.plane_size()), q);
      });
  for_each(
      "fill_sparse", grid, BlockSet::all, Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < Q; ++q)
          sparse_src(v, q) = pull_value(view.coordinate(v, 0), view.coordinate(v, 1), view.coordinate(v, 2), q);
      });
  for_each("pull_dense", part.owned(), Kokkos::DefaultExecutionSpace(),
           WeightedPull<Neighbours<3>, F>{local, dense_src, dense_dst});
  // Only the voxels of the owned planes: the others' z neighbours are outside the box.
  for_each(
      "pull_sparse", grid, BlockSet::all, Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        const int z = view.coordinate(v, 2);
        if (z >= 1 && z <= local.nz - 2) WeightedPull<BlockNeighbours<3, 4, Space>, G>{view, sparse_src, sparse_dst}(v);
      });
  auto dense = create_mirror(dense_dst);
  auto sparse = create_mirror(sparse_dst);
  deep_copy(dense, dense_dst);
  deep_copy(sparse, sparse_dst);
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    const int x = int(v % local.nx), y = int(v / local.nx % local.ny), z = int(v / local.plane_size());
    for (int q = 0; q < Q; ++q) ASSERT_EQ(sparse(grid.find(x, y, z), q), dense(v, q)) << x << "," << y << "," << z;
  }
}

TEST(BlockSparseGrid, SameStencilKernelAsDenseBox) { expect_same_stencil_kernel_as_dense_box(); }

TEST(BlockSparseGrid, BlockLayoutIsSoAInsideEachBlock) {
  const Sample s = make_sample({8, 8, 8}, {false, false, false}, 1.0, 0.0, 23);
  const auto grid = make_grid<3, 4>(s, BlockGrouping::memory);
  using Layout = BlockSparseGrid<3, 4, Space>::block_layout;
  const Layout::mapping map(grid.group_table(), 19);
  // Block b's 19 x 64 values are one chunk; component q of it a run of 64.
  for (block_index_t b = 0; b < grid.block_count(); ++b) {
    for (int q = 0; q < 19; ++q) {
      EXPECT_EQ(map.offset(index_t(b) * 64, q), index_t(b) * 64 * 19 + q * 64);
      EXPECT_EQ(map.offset(index_t(b) * 64 + 63, q), index_t(b) * 64 * 19 + q * 64 + 63);
    }
  }
}

/// The active blocks of a sample, as a builder that knows its blocks lists them (in reverse
/// lattice order, some twice with half their mask each: the constructor sorts and joins).
template <int Dim, int B>
std::vector<typename BlockSparseGrid<Dim, B, Space>::ActiveBlock> listed_blocks(const Sample& s) {
  using Grid = BlockSparseGrid<Dim, B, Space>;
  using Shape = BlockShape<Dim, B>;
  const Extents lattice = Grid::block_lattice(s.box);
  std::vector<typename Grid::ActiveBlock> blocks;
  for (int bz = 0; bz < lattice.nz; ++bz) {
    for (int by = 0; by < lattice.ny; ++by) {
      for (int bx = 0; bx < lattice.nx; ++bx) {
        typename Grid::mask_type mask = 0;
        for (int l = 0; l < Shape::voxels; ++l) {
          const int x = bx * B + Shape::local_coordinate(l, 0), y = by * B + Shape::local_coordinate(l, 1);
          const int z = Dim == 3 ? bz * B + Shape::local_coordinate(l, 2) : 0;
          if (x < s.box.nx && y < s.box.ny && z < s.box.nz && s.is_active(x, y, z)) {
            mask |= typename Grid::mask_type(1) << l;
          }
        }
        if (mask == 0) continue;
        if ((bx + by + bz) % 3 == 0) {
          const auto half = mask & (mask >> 1 | mask << 1);
          blocks.push_back({{bx, by, bz}, half});
          blocks.push_back({{bx, by, bz}, mask & ~half});
        } else {
          blocks.push_back({{bx, by, bz}, mask});
        }
      }
    }
  }
  std::reverse(blocks.begin(), blocks.end());
  return blocks;
}

/// Every table of two grids, the block count and the groups' blocks equal.
template <class Grid>
void expect_same_grid(const Grid& a, const Grid& b) {
  ASSERT_EQ(a.block_count(), b.block_count());
  EXPECT_EQ(a.boundary_block_count(), b.boundary_block_count());
  EXPECT_EQ(a.active_voxel_count(), b.active_voxel_count());
  for (int g = 0; g < a.group_table().size(); ++g) {
    EXPECT_EQ(a.group_blocks(g).begin, b.group_blocks(g).begin) << "group " << g;
    EXPECT_EQ(a.group_blocks(g).end, b.group_blocks(g).end) << "group " << g;
  }
  for (block_index_t k = 0; k < a.block_count(); ++k) {
    ASSERT_EQ(a.mask(k), b.mask(k)) << "block " << k;
    ASSERT_EQ(a.origin(k), b.origin(k)) << "block " << k;
    ASSERT_EQ(a.boundary(k), b.boundary(k)) << "block " << k;
    for (int dir = 0; dir < Grid::shape_type::directions; ++dir)
      ASSERT_EQ(a.neighbour(k, dir), b.neighbour(k, dir)) << "block " << k << " direction " << dir;
  }
  const Extents box = a.extents();
  for (int z = 0; z < box.nz; ++z)
    for (int y = 0; y < box.ny; ++y)
      for (int x = 0; x < box.nx; ++x) ASSERT_EQ(a.find(x, y, z), b.find(x, y, z)) << x << "," << y << "," << z;
}

TEST(BlockSparseGrid, ListedBlocksBuildTheGridOfTheirVoxels) {
  using Grid3 = BlockSparseGrid<3, 4, Space>;
  unsigned seed = 300;
  for (const bool periodic : {false, true}) {
    // A table over the lattice (0.4) and the stored blocks' sorted keys (0.0005: a few blocks).
    for (const double fill : {0.4, 0.0005}) {
      const Sample s = make_sample({16, 12, 32}, {periodic, periodic, periodic}, fill, 0.05, seed++);
      const auto boundary = [&](int x, int y, int z) { return s.is_boundary(x, y, z); };
      const auto active = [&](int x, int y, int z) { return s.is_active(x, y, z); };
      const auto blocks = listed_blocks<3, 4>(s);
      // One rank, and each rank of 3 sharing the 8 block planes along z (3, 3 and 2 planes).
      const std::vector<OwnedBlockPlanes> parts = {{0, 8}, {0, 3}, {3, 3}, {6, 2}};
      for (const OwnedBlockPlanes owned : parts) {
        SCOPED_TRACE(std::string(periodic ? "periodic" : "walled") + " planes " + std::to_string(owned.begin) + "+" +
                     std::to_string(owned.count));
        for (const auto g : {BlockGrouping::memory, BlockGrouping::bitmask}) {
          expect_same_grid(Grid3("voxels", s.box, s.periodic, owned, active, boundary, g),
                           Grid3("blocks", s.box, s.periodic, owned, blocks, boundary, g));
        }
      }
    }
  }
  const Sample s2 = make_sample({24, 16, 1}, {true, false, false}, 0.5, 0.05, seed++);
  using Grid2 = BlockSparseGrid<2, 8, Space>;
  expect_same_grid(Grid2(
                       "voxels", s2.box, s2.periodic, [&](int x, int y, int z) { return s2.is_active(x, y, z); },
                       [&](int x, int y, int z) { return s2.is_boundary(x, y, z); }),
                   Grid2("blocks", s2.box, s2.periodic, OwnedBlockPlanes{0, 2}, listed_blocks<2, 8>(s2),
                         [&](int x, int y, int z) { return s2.is_boundary(x, y, z); }));
}

// Blocks of several kinds (a refined level's roles): every group holds a run of each kind in kind
// order, the interior's split into boundary and non-boundary blocks with memory grouping; the
// blocks, their bits and links are those of the grid without kinds, and a shared group lists the
// blocks of the neighbour's halo group facing it in the same order. Launches by kind visit every
// active voxel once; a boundary set without a kind, a kind out of range and a block of two kinds
// are refused.
TEST(BlockSparseGrid, KindsAreRunsOfEveryGroup) {
  using Grid = BlockSparseGrid<3, 4, Space>;
  using Shape = Grid::shape_type;
  const Sample s = make_sample({32, 32, 32}, {true, true, true}, 0.9999, 0.0005, 401);
  const auto boundary = [&](int x, int y, int z) { return s.is_boundary(x, y, z); };
  const auto kind_of = [](const std::array<int, 3>& at) { return (at[0] + 2 * at[1] + 3 * at[2]) % 3; };
  const auto plain = listed_blocks<3, 4>(s);
  auto kinded = plain;
  for (auto& b : kinded) b.kind = kind_of(b.at);
  for (const OwnedBlockPlanes owned : {OwnedBlockPlanes{0, 8}, OwnedBlockPlanes{3, 3}}) {
    for (const auto g : {BlockGrouping::memory, BlockGrouping::bitmask}) {
      SCOPED_TRACE(std::string(name(g)) + " planes " + std::to_string(owned.begin) + "+" + std::to_string(owned.count));
      const Grid a("plain", s.box, s.periodic, owned, plain, boundary, g);
      const Grid k("kinds", s.box, s.periodic, owned, kinded, boundary, g);
      ASSERT_EQ(a.kinds(), 1);
      ASSERT_EQ(k.kinds(), 3);
      ASSERT_EQ(a.block_count(), k.block_count());
      EXPECT_EQ(a.boundary_block_count(), k.boundary_block_count());
      EXPECT_THROW((void)k.span(BlockSet::boundary), Error);
      EXPECT_THROW((void)k.span(BlockSet::all, Grid::max_kinds), Error);
      // Same blocks, bits and links, found by their origin.
      for (block_index_t b = 0; b < k.block_count(); ++b) {
        const auto o = k.origin(b);
        const index_t v = a.find(o[0], o[1], o[2]);
        if (v == absent_voxel) continue;  // a halo block: checked through the groups below
        const auto p = block_index_t(v / Shape::voxels);
        ASSERT_EQ(k.mask(b), a.mask(p));
        ASSERT_EQ(k.boundary(b), a.boundary(p));
        ASSERT_EQ(k.kind(b), kind_of({o[0] / 4, o[1] / 4, o[2] / 4}));
        for (int dir = 0; dir < Shape::directions; ++dir) {
          const block_index_t kn = k.neighbour(b, dir), an = a.neighbour(p, dir);
          ASSERT_EQ(kn == absent_block, an == absent_block);
          if (kn != absent_block) {
            ASSERT_EQ(k.origin(kn), a.origin(an));
          }
        }
      }
      // Every group holds the blocks it holds without kinds, a run of each kind in kind order,
      // and (but the interior, split by the boundary bit) each run in Z-order.
      const GroupTable groups = k.group_table();
      const auto z_key = [&](block_index_t b) {
        const auto o = k.origin(b);
        return detail::morton_key(o[0] / 4, o[1] / 4, o[2] / 4);
      };
      for (int grp = 0; grp < groups.size(); ++grp) {
        const BlockRange kr = k.group_blocks(grp), ar = a.group_blocks(grp);
        ASSERT_EQ(kr.begin, ar.begin);
        ASSERT_EQ(kr.end, ar.end);
        EXPECT_EQ(k.group_blocks(grp, 0).begin, kr.begin) << groups.describe(grp);
        EXPECT_EQ(k.group_blocks(grp, Grid::max_kinds - 1).end, kr.end) << groups.describe(grp);
        for (int kind = 0; kind < Grid::max_kinds; ++kind) {
          const BlockRange run = k.group_blocks(grp, kind);
          if (kind > 0) {
            EXPECT_EQ(run.begin, k.group_blocks(grp, kind - 1).end) << groups.describe(grp);
          }
          for (block_index_t b = run.begin; b < run.end; ++b) {
            ASSERT_EQ(k.kind(b), kind) << groups.describe(grp);
            if (groups[grp].role != GroupRole::interior && b > run.begin) {
              ASSERT_LT(z_key(b - 1), z_key(b)) << groups.describe(grp);
            }
          }
        }
      }
      // The runs of the kinds tile the interior group in kind order.
      const BlockRange interior = k.group_blocks(k.interior_group());
      EXPECT_EQ(k.span(BlockSet::all, 0).begin, interior.begin);
      EXPECT_EQ(k.span(BlockSet::all, Grid::max_kinds - 1).end, interior.end);
      for (int kind = 0; kind < Grid::max_kinds; ++kind) {
        const BlockRange run = k.span(BlockSet::all, kind);
        if (kind > 0) {
          EXPECT_EQ(run.begin, k.span(BlockSet::all, kind - 1).end);
        }
        for (block_index_t b = run.begin; b < run.end; ++b) {
          ASSERT_EQ(k.kind(b), kind);
        }
        const BlockRange bnd = k.span(BlockSet::boundary, kind), bulk = k.span(BlockSet::non_boundary, kind);
        if (g == BlockGrouping::bitmask) {
          EXPECT_EQ(bnd.begin, run.begin);
          EXPECT_EQ(bnd.end, run.end);
          continue;
        }
        EXPECT_EQ(bnd.begin, run.begin);
        EXPECT_EQ(bnd.end, bulk.begin);
        EXPECT_EQ(bulk.end, run.end);
        for (block_index_t b = bnd.begin; b < bnd.end; ++b) {
          ASSERT_TRUE(k.boundary(b));
        }
        for (block_index_t b = bulk.begin; b < bulk.end; ++b) {
          ASSERT_FALSE(k.boundary(b));
        }
        if (kind < 3) {
          EXPECT_GT(bulk.size(), 0) << "kind " << kind;
        }
      }
      // Launches by kind visit every active voxel of the interior once, and nothing else.
      Kokkos::View<int*, Space> visits("visits", std::size_t(k.voxel_count()));
      for (int kind = 0; kind < 3; ++kind) {
        for (const BlockSet set : {BlockSet::boundary, BlockSet::non_boundary}) {
          for_each(
              "visit", k, set, kind, Kokkos::DefaultExecutionSpace(),
              KOKKOS_LAMBDA(index_t v) { Kokkos::atomic_increment(&visits(v)); });
        }
      }
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), visits);
      for (index_t v = 0; v < k.voxel_count(); ++v) {
        const auto b = block_index_t(v / Shape::voxels);
        const bool inside = b >= interior.begin && b < interior.end;
        ASSERT_EQ(host(v), inside ? int((k.mask(b) >> (v % Shape::voxels)) & 1u) : 0) << "voxel " << v;
      }
    }
  }
  // Three ranks sharing the 8 periodic block planes: each shared group and the neighbour's halo
  // group facing it list the same blocks in the same order, kinds and all.
  const std::vector<OwnedBlockPlanes> ranks = {{0, 3}, {3, 3}, {6, 2}};
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const Grid self("rank", s.box, s.periodic, ranks[r], kinded, boundary);
    const Grid upper("upper", s.box, s.periodic, ranks[(r + 1) % ranks.size()], kinded, boundary);
    const GroupTable mine = self.group_table(), theirs = upper.group_table();
    const BlockRange sent = self.group_blocks(mine.at(GroupRole::shared, NeighbourStep::along(2, +1)));
    const BlockRange received = upper.group_blocks(theirs.at(GroupRole::halo, NeighbourStep::along(2, -1)));
    ASSERT_EQ(sent.size(), received.size()) << "rank " << r;
    ASSERT_GT(sent.size(), 0);
    for (block_index_t i = 0; i < sent.size(); ++i) {
      ASSERT_EQ(self.origin(sent.begin + i), upper.origin(received.begin + i)) << "rank " << r << " block " << i;
      ASSERT_EQ(self.kind(sent.begin + i), upper.kind(received.begin + i));
    }
  }
  auto bad = kinded;
  bad.front().kind = Grid::max_kinds;
  EXPECT_THROW(Grid("bad", s.box, s.periodic, OwnedBlockPlanes{0, 8}, bad, boundary), Error);
  bad = kinded;
  const auto listed = *std::find_if(bad.begin(), bad.end(), [](const auto& b) { return b.mask != 0; });
  bad.push_back(listed);
  bad.back().kind = (listed.kind + 1) % 3;
  EXPECT_THROW(Grid("bad", s.box, s.periodic, OwnedBlockPlanes{0, 8}, bad, boundary), Error);
}

// A grid's set-up costs what its stored blocks cost, not its box: a 4096^3 virtual box (2^30
// blocks of 4^3) with a handful of blocks builds with tables of a few kB, asks the boundary
// classifier about the voxels of full blocks alone, and finds its voxels and neighbours. A table
// per block of the box would take 4 GiB.
TEST(BlockSparseGrid, SetUpScalesWithStoredBlocksNotTheBox) {
  using Grid = BlockSparseGrid<3, 4, Space>;
  const Extents box{4096, 4096, 4096};
  std::vector<Grid::ActiveBlock> blocks;
  // A 2x2x2 cluster of full blocks near the far corner, and four lone partial blocks.
  for (int k = 0; k < 8; ++k) blocks.push_back({{1000 + k % 2, 700 + k / 2 % 2, 1020 + k / 4}, ~Grid::mask_type(0)});
  for (int k = 0; k < 4; ++k) blocks.push_back({{17 * k, 300 + k, 1023 - k}, Grid::mask_type(0x5) << k});
  std::int64_t asked = 0;
  const Grid grid("huge", box, {false, false, false}, OwnedBlockPlanes{0, 1024}, blocks, [&](int, int, int) {
    ++asked;
    return false;
  });
  EXPECT_EQ(grid.block_count(), 12);
  EXPECT_EQ(grid.active_voxel_count(), 8 * 64 + 4 * 2);
  EXPECT_LE(asked, 8 * 64);
  EXPECT_LT(grid.host_bytes(), std::size_t(64) << 10);
  // A voxel of the cluster, its neighbour block inside the cluster and outside it.
  const index_t v = grid.find(4000, 2800, 4080);
  ASSERT_NE(v, absent_voxel);
  const auto b = block_index_t(v / 64);
  EXPECT_EQ(grid.origin(b), (std::array<int, 3>{4000, 2800, 4080}));
  EXPECT_NE(grid.neighbour(b, Grid::shape_type::direction(1, 0, 0)), absent_block);
  EXPECT_EQ(grid.neighbour(b, Grid::shape_type::direction(-1, 0, 0)), absent_block);
  EXPECT_EQ(grid.find(0, 0, 0), absent_voxel);
  EXPECT_NE(grid.find(17 * 4 * 2 + 1, (300 + 2) * 4, (1023 - 2) * 4), absent_voxel);
  // Every block of the cluster touches an absent one: all are boundary blocks.
  EXPECT_EQ(grid.boundary_block_count(), 12);
}

TEST(BlockSparseGrid, RefusesBadInput) {
  const auto everything = [](int, int, int) { return true; };
  const auto nothing = [](int, int, int) { return false; };
  using Grid3 = BlockSparseGrid<3, 4, Space>;
  using Grid2 = BlockSparseGrid<2, 4, Space>;
  try {
    Grid3("g", {10, 8, 8}, {true, false, false}, everything, nothing);
    FAIL() << "a periodic axis of 10 voxels with B = 4 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("periodic axis x has 10 voxels"), std::string::npos) << e.what();
  }
  try {
    Grid3("g", {8, 8, 8}, {false, false, false}, nothing, nothing);
    FAIL() << "a box without active voxels was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no active voxel"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Grid2("g", {8, 8, 4}, {false, false, false}, everything, nothing), Error);
  EXPECT_THROW(Grid3("g", {8, 8, 1}, {false, false, false}, everything, nothing), Error);
  EXPECT_THROW(Grid3("g", {0, 8, 8}, {false, false, false}, everything, nothing), Error);
  // Listed blocks outside the lattice, or with voxels past the box's side.
  const OwnedBlockPlanes all{0, 2};
  EXPECT_THROW(Grid3("g", {8, 8, 8}, {false, false, false}, all, {{{2, 0, 0}, 1u}}, nothing), Error);
  EXPECT_THROW(Grid3("g", {8, 8, 8}, {false, false, false}, all, {{{0, -1, 0}, 1u}}, nothing), Error);
  try {
    Grid3("g", {6, 8, 8}, {false, false, false}, all, {{{1, 0, 0}, ~Grid3::mask_type(0)}}, nothing);
    FAIL() << "a mask with voxels past the box's side was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("past the box's side"), std::string::npos) << e.what();
  }
}

TEST(Morton, InterleavesTheBitsOfXYZXLowest) {
  // The code interleaves the bits of x, y and z, x lowest.
  auto naive = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    std::uint64_t c = 0;
    for (int b = 0; b < 21; ++b) {
      c |= std::uint64_t((x >> b) & 1u) << (3 * b);
      c |= std::uint64_t((y >> b) & 1u) << (3 * b + 1);
      c |= std::uint64_t((z >> b) & 1u) << (3 * b + 2);
    }
    return c;
  };
  std::mt19937 rng(11);
  for (int t = 0; t < 1000; ++t) {
    const std::uint32_t x = rng() & 0x1fffff, y = rng() & 0x1fffff, z = rng() & 0x1fffff;
    EXPECT_EQ(morton_code(x, y, z), naive(x, y, z));
  }
  EXPECT_EQ(morton_code(1, 0, 0), 1u);
  EXPECT_EQ(morton_code(0, 1, 0), 2u);
  EXPECT_EQ(morton_code(0, 0, 1), 4u);
}

}  // namespace
