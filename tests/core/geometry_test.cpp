// Geometry input: shape lists, random and regular sphere packs (target porosity, seeds), raw
// voxel images, STL surfaces, the flow-path check, and a block-sparse grid built from a generated sample.
#include "../common/expect_error.hpp"

#include <karman/core/error.hpp>
#include <karman/core/geometry/fluid_path.hpp>
#include <karman/core/geometry/raw_image.hpp>
#include <karman/core/geometry/shapes.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/core/geometry/stl.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace karman;
using namespace karman::geometry;

constexpr double pi = 3.14159265358979323846;

using karman::test::expect_error;

/// A fresh empty directory under the system's temporary directory.
std::filesystem::path scratch_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "karman_geometry_XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made == nullptr ? std::filesystem::path() : std::filesystem::path(made);
}

/// Solid voxels whose centre lies within `r` of `c`, counted the slow way (no wrap).
index_t brute_force_ball(const Extents& e, const std::array<double, 3>& c, double r) {
  index_t n = 0;
  for (int k = 0; k < e.nz; ++k)
    for (int j = 0; j < e.ny; ++j)
      for (int i = 0; i < e.nx; ++i) {
        const double dx = i + 0.5 - c[0], dy = j + 0.5 - c[1], dz = k + 0.5 - c[2];
        n += dx * dx + dy * dy + dz * dz <= r * r;
      }
  return n;
}

TEST(Geometry, ShapeListIsReadAndPainted) {
  std::istringstream list(
      "# obstacles\n"
      "sphere 10 11.5 9 4.5   # a ball\n"
      "\n"
      "cylinder 0 5 5 24 5 5 2.5\n");
  const ShapeList shapes = read_shape_list(list, "list");
  ASSERT_EQ(shapes.spheres.size(), 1u);
  ASSERT_EQ(shapes.cylinders.size(), 1u);
  EXPECT_EQ(shapes.spheres[0].radius, 4.5);
  EXPECT_EQ(shapes.cylinders[0].to[0], 24.0);

  const Extents box{24, 20, 18};
  VoxelImage ball = fluid_image(box, 1.0, "test");
  EXPECT_EQ(paint(ball, shapes.spheres[0], {false, false, false}), brute_force_ball(box, {10, 11.5, 9}, 4.5));
  EXPECT_EQ(ball.fluid_voxels(), box.size() - brute_force_ball(box, {10, 11.5, 9}, 4.5));

  // A cylinder along x through the whole box: the same disc of voxels in every x plane.
  VoxelImage rod = fluid_image(box, 1.0, "test");
  paint(rod, shapes.cylinders[0], {false, false, false});
  index_t disc = 0;
  for (int k = 0; k < box.nz; ++k)
    for (int j = 0; j < box.ny; ++j) {
      const double dy = j + 0.5 - 5, dz = k + 0.5 - 5;
      disc += dy * dy + dz * dz <= 2.5 * 2.5;
    }
  EXPECT_EQ(box.size() - rod.fluid_voxels(), disc * box.nx);

  // shapes_image paints both.
  const VoxelImage both = shapes_image(box, 0.5, shapes, {false, false, false});
  EXPECT_EQ(both.voxel_size, 0.5);
  EXPECT_GT(box.size() - both.fluid_voxels(), disc * box.nx);
}

TEST(Geometry, PeriodicShapesWrap) {
  const Extents box{16, 16, 16};
  VoxelImage wrapped = fluid_image(box, 1.0, "test");
  VoxelImage centred = fluid_image(box, 1.0, "test");
  // A ball across the corner, wrapped, holds as many voxels as the same ball in the middle.
  EXPECT_EQ(paint(wrapped, Sphere{{0.0, 0.0, 0.0}, 5.0}, {true, true, true}),
            paint(centred, Sphere{{8.0, 8.0, 8.0}, 5.0}, {true, true, true}));
  EXPECT_TRUE(wrapped.is_solid(15, 15, 15));
  EXPECT_TRUE(wrapped.is_solid(0, 0, 0));
  VoxelImage clipped = fluid_image(box, 1.0, "test");
  EXPECT_LT(paint(clipped, Sphere{{0.0, 0.0, 0.0}, 5.0}, {false, false, false}),
            wrapped.extents.size() - wrapped.fluid_voxels());
}

TEST(Geometry, ShapeListRefusesBadLines) {
  const auto read = [](const char* text) {
    std::istringstream in(text);
    return read_shape_list(in, "shapes.txt");
  };
  expect_error([&] { read("sphere 1 2 3 4\ncube 1 2 3\n"); },
               {"shapes.txt:2", "unknown shape 'cube'", "sphere, cylinder"});
  expect_error([&] { read("sphere 1 2 3\n"); }, {"shapes.txt:1", "3 values, expected 4", "cx cy cz r"});
  expect_error([&] { read("# ok\nsphere 1 2 x 4\n"); }, {"shapes.txt:2", "'x' is not a finite number"});
  expect_error([&] { read("cylinder 0 0 0 1 1 1 -2\n"); }, {"radius = -2", "> 0"});
  expect_error([&] { read("cylinder 1 1 1 1 1 1 2\n"); }, {"coincide"});
  expect_error([&] { read_shape_list(std::filesystem::path("/nonexistent/shapes.txt")); }, {"cannot open"});
}

TEST(Geometry, RandomPackHitsTargetPorosityReproducibly) {
  for (const Extents box : {Extents{48, 40, 44}, Extents{160, 128, 1}}) {
    const bool three_d = box.dimension() == 3;
    for (const double target : {0.3, 0.55, 0.85}) {
      RandomPackOptions options;
      options.porosity = target;
      options.radius_min = three_d ? 3.0 : 4.0;
      options.radius_max = three_d ? 5.0 : 9.0;
      options.seed = 12345;
      const SpherePack pack = random_sphere_pack(box, options);
      SCOPED_TRACE(std::to_string(box.dimension()) + "D target " + std::to_string(target));
      // Half the largest sphere's voxels over the box: the step one sphere makes.
      const double r = options.radius_max;
      const double step = (three_d ? 4.0 / 3.0 * pi * r * r * r : pi * r * r) / double(box.size());
      EXPECT_NEAR(pack.porosity, target, 0.5 * step + 1e-12);
      EXPECT_DOUBLE_EQ(pack.porosity, pack.image.porosity());
      EXPECT_GT(pack.spheres.size(), 1u);

      // The image is exactly its spheres, painted again.
      VoxelImage again = fluid_image(box, 1.0, "test");
      for (const Sphere& s : pack.spheres) {
        EXPECT_GE(s.radius, options.radius_min);
        EXPECT_LE(s.radius, options.radius_max);
        paint(again, s, options.periodic);
      }
      EXPECT_EQ(again.solid, pack.image.solid);

      // The same seed gives the same pack; another seed another.
      EXPECT_EQ(random_sphere_pack(box, options).image.solid, pack.image.solid);
      options.seed = 54321;
      EXPECT_NE(random_sphere_pack(box, options).image.solid, pack.image.solid);
    }
  }
  RandomPackOptions open;
  open.porosity = 1.0;
  EXPECT_EQ(random_sphere_pack({16, 16, 16}, open).spheres.size(), 0u);
}

TEST(Geometry, RandomPackRefusesBadOptions) {
  RandomPackOptions options;
  options.porosity = 0.0;
  expect_error([&] { random_sphere_pack({32, 32, 32}, options); }, {"porosity = 0", "[0.01, 1]"});
  options.porosity = 0.5;
  options.radius_min = 20;
  options.radius_max = 20;
  expect_error([&] { random_sphere_pack({32, 32, 32}, options); }, {"radius_min = 20", "[0.5, 16]"});
  options.radius_min = 4;
  options.radius_max = 3;
  expect_error([&] { random_sphere_pack({32, 32, 32}, options); }, {"radius_max = 3"});
}

TEST(Geometry, SimpleCubicArrays) {
  // Porosity of one ball per cubic cell, 1 - 4/3 pi r^3 / L^3, to the voxelisation error.
  const int period = 24;
  for (const double r : {4.0, 8.0, 11.0}) {
    const SpherePack pack = simple_cubic_array({48, 72, 48}, period, r);
    EXPECT_EQ(pack.spheres.size(), 2u * 3u * 2u);
    EXPECT_NEAR(pack.porosity, 1 - 4.0 / 3.0 * pi * r * r * r / (period * period * period), 0.01) << "r " << r;
    // Every cell is the same.
    for (int k = 0; k < 48; ++k)
      for (int j = 0; j < 48; ++j)
        for (int i = 0; i < 24; ++i) ASSERT_EQ(pack.image.is_solid(i, j, k), pack.image.is_solid(i + 24, j + 24, k));
  }
  // Touching spheres (r = L / 2) and beyond: the array stays solid-connected, porosity falls.
  EXPECT_LT(simple_cubic_array({24, 24, 24}, 24, 13.0).porosity, simple_cubic_array({24, 24, 24}, 24, 12.0).porosity);

  for (const double target : {0.9, 0.6, 0.476, 0.3}) {
    const SpherePack pack = simple_cubic_array_at_porosity({32, 32, 32}, 16, target);
    EXPECT_NEAR(pack.porosity, target, 0.01) << "target " << target;
  }
  const SpherePack discs = simple_cubic_array_at_porosity({64, 32, 1}, 16, 0.7);
  EXPECT_NEAR(discs.porosity, 0.7, 0.01);
  EXPECT_EQ(discs.spheres.size(), 8u);

  expect_error([] { simple_cubic_array({50, 48, 48}, 24, 5.0); }, {"extent along x = 50", "period 24"});
  expect_error([] { simple_cubic_array({48, 48, 48}, 24, 30.0); }, {"radius = 30"});
}

TEST(Geometry, RawImagesAreReadAndCheckedBeforeAllocation) {
  const auto dir = scratch_directory();
  const Extents box{5, 4, 3};
  std::vector<unsigned char> bytes(std::size_t(box.size()));
  for (std::size_t v = 0; v < bytes.size(); ++v) bytes[v] = (v * 7 % 5 == 0) ? 0 : (v % 3 == 0 ? 255 : 1);
  const auto file = dir / "sample.raw";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));

  const VoxelImage image = read_raw_image({file, box, 2.5e-6, VoxelEncoding::nonzero_is_solid});
  EXPECT_EQ(image.extents, box);
  EXPECT_EQ(image.voxel_size, 2.5e-6);
  const VoxelImage inverted = read_raw_image({file, box, 1.0, VoxelEncoding::zero_is_solid});
  for (int k = 0; k < box.nz; ++k)
    for (int j = 0; j < box.ny; ++j)
      for (int i = 0; i < box.nx; ++i) {
        const bool solid = bytes[std::size_t(box.index(i, j, k))] != 0;
        EXPECT_EQ(image.is_solid(i, j, k), solid);
        EXPECT_EQ(inverted.is_solid(i, j, k), !solid);
      }

  expect_error([&] { read_raw_image({file, {5, 4, 4}, 1.0}); }, {"holds 60 bytes", "5 x 4 x 4", "need 80"});
  expect_error([&] { read_raw_image({dir / "missing.raw", box, 1.0}); }, {"missing.raw", "no such file"});
  expect_error([&] { read_raw_image({file, {0, 4, 3}, 1.0}); }, {"nx = 0", "out of range"});
  expect_error([&] { read_raw_image({file, box, -1.0}); }, {"voxel size = -1"});
  std::filesystem::remove_all(dir);
}

TEST(Geometry, FlowPathIsRequired) {
  // 2D 8 x 8, solid but for two half rows that meet only across the periodic y boundary.
  VoxelImage image = fluid_image({8, 8, 1}, 1.0, "test");
  for (auto& v : image.solid) v = 1;
  for (int x = 0; x <= 3; ++x) image.solid[std::size_t(image.extents.index(x, 0, 0))] = 0;
  for (int x = 3; x <= 7; ++x) image.solid[std::size_t(image.extents.index(x, 7, 0))] = 0;
  EXPECT_TRUE(has_fluid_path(image, 0, {false, true, false}));
  EXPECT_FALSE(has_fluid_path(image, 0, {false, false, false}));
  EXPECT_FALSE(has_fluid_path(image, 1, {true, false, false})) << "nothing crosses along y";
  expect_error(
      [&] {
        require_fluid_path(image, 0, {false, false, false}, "porous");
      },
      {"porous", "no fluid path along x", "porosity"});
  require_fluid_path(image, 0, {false, true, false}, "porous");

  for (auto& v : image.solid) v = 1;
  expect_error([&] { require_fluid_path(image, 0, {true, true, false}, "porous"); }, {"all solid"});

  // 3D: a wall across x blocks the flow until a hole is drilled through it.
  VoxelImage walled = fluid_image({12, 10, 9}, 1.0, "test");
  for (int k = 0; k < 9; ++k)
    for (int j = 0; j < 10; ++j) walled.solid[std::size_t(walled.extents.index(6, j, k))] = 1;
  EXPECT_FALSE(has_fluid_path(walled, 0, {false, true, true}));
  EXPECT_TRUE(has_fluid_path(walled, 1, {false, false, false}));
  walled.solid[std::size_t(walled.extents.index(6, 9, 8))] = 0;
  EXPECT_TRUE(has_fluid_path(walled, 0, {false, false, false}));
  expect_error([&] { has_fluid_path(walled, 3, {false, false, false}); }, {"flow axis = 3", "[0, 2]"});
}

/// The 12 triangles of the axis-aligned cube [lo, hi]^3.
std::vector<Triangle> cube(double lo, double hi) {
  std::vector<Triangle> t;
  for (int axis = 0; axis < 3; ++axis) {
    for (const double side : {lo, hi}) {
      // Corners of the face at `side` along `axis`, in order around it.
      std::array<std::array<double, 3>, 4> q{};
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const double uv[4][2] = {{lo, lo}, {hi, lo}, {hi, hi}, {lo, hi}};
      for (int c = 0; c < 4; ++c) {
        q[std::size_t(c)][std::size_t(axis)] = side;
        q[std::size_t(c)][std::size_t(u)] = uv[c][0];
        q[std::size_t(c)][std::size_t(v)] = uv[c][1];
      }
      t.push_back({{q[0], q[1], q[2]}});
      t.push_back({{q[0], q[2], q[3]}});
    }
  }
  return t;
}

/// The 8 triangles of the octahedron |x - c| + |y - c| + |z - c| <= r.
std::vector<Triangle> octahedron(const std::array<double, 3>& c, double r) {
  std::vector<Triangle> t;
  for (const double sx : {-1.0, 1.0})
    for (const double sy : {-1.0, 1.0})
      for (const double sz : {-1.0, 1.0})
        t.push_back(
            {{std::array<double, 3>{c[0] + sx * r, c[1], c[2]}, std::array<double, 3>{c[0], c[1] + sy * r, c[2]},
              std::array<double, 3>{c[0], c[1], c[2] + sz * r}}});
  return t;
}

void write_ascii_stl(const std::filesystem::path& path, const std::vector<Triangle>& triangles) {
  std::ofstream out(path);
  out << "solid test\n";
  for (const Triangle& t : triangles) {
    out << "  facet normal 0 0 0\n    outer loop\n";
    for (const auto& v : t.vertices) out << "      vertex " << v[0] << " " << v[1] << " " << v[2] << "\n";
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid test\n";
}

void write_binary_stl(const std::filesystem::path& path, const std::vector<Triangle>& triangles) {
  std::ofstream out(path, std::ios::binary);
  const std::string header = "solid but binary: the size decides";
  char head[80] = {};
  std::memcpy(head, header.data(), header.size());
  out.write(head, 80);
  const auto count = std::uint32_t(triangles.size());
  out.write(reinterpret_cast<const char*>(&count), 4);
  for (const Triangle& t : triangles) {
    float values[12] = {};
    for (int v = 0; v < 3; ++v)
      for (int d = 0; d < 3; ++d) values[3 + 3 * v + d] = float(t.vertices[std::size_t(v)][std::size_t(d)]);
    out.write(reinterpret_cast<const char*>(values), sizeof values);
    out.write("\0\0", 2);
  }
}

TEST(Geometry, StlSurfacesAreVoxelisedInsideOut) {
  const auto dir = scratch_directory();
  write_ascii_stl(dir / "cube.stl", cube(2.2, 7.8));
  const auto cube_surface = read_stl(dir / "cube.stl");
  ASSERT_EQ(cube_surface.size(), 12u);
  const Extents box{10, 10, 10};
  const VoxelImage obstacle = voxelise(cube_surface, box, {}, StlInside::solid);
  EXPECT_EQ(box.size() - obstacle.fluid_voxels(), 6 * 6 * 6);
  EXPECT_TRUE(obstacle.is_solid(2, 7, 4));
  EXPECT_FALSE(obstacle.is_solid(1, 7, 4));
  const VoxelImage vessel = voxelise(cube_surface, box, {}, StlInside::fluid);
  EXPECT_EQ(vessel.fluid_voxels(), 6 * 6 * 6);
  // Placement: half-size voxels from (1, 1, 1) put the cube at voxel coordinates [2.4, 13.6].
  const VoxelImage fine = voxelise(cube_surface, {16, 16, 16}, {{1.0, 1.0, 1.0}, 0.5}, StlInside::solid);
  EXPECT_EQ(16 * 16 * 16 - fine.fluid_voxels(), 12 * 12 * 12);
  EXPECT_EQ(fine.voxel_size, 0.5);

  // A binary octahedron: exactly the voxels whose (ray-shifted) centres satisfy the inequality.
  const std::array<double, 3> c = {8.13, 7.91, 8.07};
  const double r = 5.3;
  write_binary_stl(dir / "octahedron.stl", octahedron(c, r));
  const VoxelImage diamond = voxelise(read_stl(dir / "octahedron.stl"), {16, 16, 16}, {}, StlInside::solid);
  index_t expected = 0;
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const double d = std::abs(i + 0.5 - c[0]) + std::abs(j + 0.5 + 1e-6 * std::sqrt(2.0) - c[1]) +
                         std::abs(k + 0.5 + 1e-6 * std::sqrt(3.0) - c[2]);
        const bool inside = d <= r;
        expected += inside;
        ASSERT_EQ(diamond.is_solid(i, j, k), inside) << i << "," << j << "," << k;
      }
  EXPECT_GT(expected, 100);

  // An open surface, a malformed file, a missing one, a 2D image.
  // (The hole is in a face across x: faces parallel to x are edge-on to the rays and never crossed.)
  auto open_box = cube(2.2, 7.8);
  open_box.erase(open_box.begin());
  expect_error([&] { voxelise(open_box, box, {}, StlInside::solid); }, {"not closed", "odd number"});
  std::ofstream(dir / "bad.stl") << "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 1 2\n";
  expect_error([&] { read_stl(dir / "bad.stl"); }, {"bad.stl:4", "'vertex' needs 3 finite numbers"});
  std::ofstream(dir / "junk.stl") << "this is no surface";
  expect_error([&] { read_stl(dir / "junk.stl"); }, {"neither a binary STL", "ASCII"});
  std::ofstream(dir / "empty.stl") << "solid nothing\nendsolid nothing\n";
  expect_error([&] { read_stl(dir / "empty.stl"); }, {"no triangles"});
  expect_error([&] { read_stl(dir / "missing.stl"); }, {"missing.stl", "no such file"});
  expect_error([&] { voxelise(cube_surface, {10, 10, 1}, {}, StlInside::solid); }, {"3D image"});
  std::filesystem::remove_all(dir);
}

TEST(Geometry, BlockSparseGridOfARandomPack) {
  RandomPackOptions options;
  options.porosity = 0.3;
  options.radius_min = options.radius_max = 3;
  const Extents box{32, 32, 32};
  const SpherePack pack = random_sphere_pack(box, options);
  const auto fluid = [&](int x, int y, int z) { return !pack.image.is_solid(x, y, z); };
  const BlockSparseGrid<3, 4> grid("pack", box, {true, true, true}, fluid, [](int, int, int) { return false; });
  EXPECT_EQ(grid.active_voxel_count(), pack.image.fluid_voxels());
  EXPECT_LE(grid.block_count(), 8 * 8 * 8);
  for (int z = 0; z < box.nz; ++z)
    for (int y = 0; y < box.ny; ++y)
      for (int x = 0; x < box.nx; ++x) {
        const index_t v = grid.find(x, y, z);
        const bool active = v != absent_voxel && ((grid.mask(block_index_t(v / 64)) >> (v % 64)) & 1u);
        ASSERT_EQ(active, fluid(x, y, z));
      }
}

}  // namespace

// Issue 51: a geometry input that is a device (or a FIFO, a folder) is refused before a byte is
// read; /dev/zero read as a shape list was one line without end.
TEST(Geometry, InputsThatAreNotRegularFilesAreRefusedUnread) {
  const std::vector<std::pair<const char*, std::function<void(const std::filesystem::path&)>>> readers = {
      {"shape list", [](const std::filesystem::path& p) { read_shape_list(p); }},
      {"STL", [](const std::filesystem::path& p) { read_stl(p); }},
      {"raw image",
       [](const std::filesystem::path& p) {
         read_raw_image({p, {4, 4, 4}, 1.0});
       }},
  };
  for (const auto& [name, read] : readers) {
    SCOPED_TRACE(name);
    expect_error([&] { read("/dev/zero"); }, {"/dev/zero", "not a regular file"});
  }
}
