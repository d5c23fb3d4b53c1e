#pragma once
/// \file sphere_pack.hpp
/// Generated porous samples: random packs of overlapping spheres at a target porosity, seeded
/// and reproducible (Tomczak §4: random and regular obstacles over a porosity sweep), and
/// simple-cubic sphere arrays (the Zick & Homsy 1982 / Sangani & Acrivos 1982 geometry).

#include <karman/core/geometry/shapes.hpp>
#include <karman/core/geometry/voxel_image.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace karman::geometry {

/// A generated sample: the image, the spheres it holds and its porosity.
struct SpherePack {
  VoxelImage image;
  std::vector<Sphere> spheres;
  double porosity = 1;  ///< achieved, fluid voxels over all voxels
};

/// Parameters of a random pack.
struct RandomPackOptions {
  double porosity = 0.5;                           ///< target, in [0.01, 1]
  double radius_min = 4;                           ///< smallest sphere radius, voxel units
  double radius_max = 4;                           ///< largest sphere radius (= radius_min for equal spheres)
  std::uint64_t seed = 1;                          ///< the same seed gives the same pack on every platform
  std::array<bool, 3> periodic{true, true, true};  ///< spheres wrap around these axes
  double voxel_size = 1.0;                         ///< stored in the image
};

/// Spheres of random centres (uniform in the box) and radii (uniform in [radius_min,
/// radius_max]) are added, overlaps allowed, until the porosity reaches the target; the last
/// sphere is kept when that lands closer to the target than leaving it out. The achieved
/// porosity is then within half a sphere's volume over the box volume of the target. In 2D
/// (nz = 1) the spheres are centred on the plane, i.e. discs.
///
/// The random numbers are std::mt19937_64's raw output, which the C++ standard fixes, turned
/// into doubles by bit arithmetic rather than std::uniform_real_distribution (whose algorithm
/// differs between standard libraries), so a seed means the same pack everywhere.
///
/// Throws karman::Error for a target porosity, radius or extents out of range, or when the
/// target cannot be reached within a bounded number of spheres.
SpherePack random_sphere_pack(const Extents& extents, const RandomPackOptions& options);

/// A simple-cubic array: one sphere of `radius` at the centre of every cubic cell of `period`
/// voxels (squares and discs in 2D). Each extent (x, y, and z in 3D) must be a multiple of the
/// period, so that the box holds whole cells and is periodic. Throws karman::Error otherwise.
SpherePack simple_cubic_array(const Extents& extents, int period, double radius, double voxel_size = 1.0);

/// The simple-cubic array whose voxelised porosity is closest to `porosity` (the radius found
/// by bisection on one cell, which has the porosity of the whole periodic array).
SpherePack simple_cubic_array_at_porosity(const Extents& extents, int period, double porosity, double voxel_size = 1.0);

}  // namespace karman::geometry
