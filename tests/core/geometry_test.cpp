// Geometry input: shape lists, random and regular sphere packs (target porosity, seeds), raw
// voxel images, the flow-path check, and a block-sparse grid built from a generated sample.
#include <karman/core/block_sparse_grid.hpp>
#include <karman/core/error.hpp>
#include <karman/core/geometry/fluid_path.hpp>
#include <karman/core/geometry/raw_image.hpp>
#include <karman/core/geometry/shapes.hpp>
#include <karman/core/geometry/sphere_pack.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace karman;
using namespace karman::geometry;

constexpr double pi = 3.14159265358979323846;

/// Runs `f`, expecting a karman::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no karman::Error thrown";
  } catch (const Error& e) {
    for (const char* part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

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
