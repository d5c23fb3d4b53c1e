#pragma once
/// \file shapes.hpp
/// Spheres and cylinders as obstacles, from a simple text list, painted into a voxel image.
/// Coordinates are in voxel units: voxel (i, j, k) spans [i, i + 1) x [j, j + 1) x [k, k + 1)
/// and is solid when its centre (i + 1/2, j + 1/2, k + 1/2) lies inside a shape.

#include <karman/core/geometry/voxel_image.hpp>

#include <array>
#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace karman::geometry {

/// A ball; in a 2D image (nz = 1) a disc where it cuts the plane z = 1/2.
struct Sphere {
  std::array<double, 3> centre{};  ///< voxel units
  double radius = 0;               ///< voxel units
};

/// A solid cylinder between two points, flat ends; in 2D, where it cuts the plane z = 1/2.
struct Cylinder {
  std::array<double, 3> from{};  ///< centre of one end, voxel units
  std::array<double, 3> to{};    ///< centre of the other end, voxel units
  double radius = 0;             ///< voxel units
};

/// Obstacles read from a shape list.
struct ShapeList {
  std::vector<Sphere> spheres;
  std::vector<Cylinder> cylinders;
};

/// Reads a shape list, one shape a line, `#` starting a comment:
///
///     sphere   cx cy cz r
///     cylinder x0 y0 z0 x1 y1 z1 r
///
/// Throws karman::Error naming `source` and the line for an unknown keyword (the accepted ones
/// listed), a wrong number of values, a value that is not a finite number, or a radius <= 0.
ShapeList read_shape_list(std::istream& in, const std::string& source);
/// Reads the shape list in file `path`; a missing or unreadable file is a karman::Error.
ShapeList read_shape_list(const std::filesystem::path& path);

/// Makes the voxels of `image` whose centres lie in the sphere solid, wrapping around the
/// axes marked periodic; appends the voxels it turned solid to `painted` when not null.
/// Returns how many voxels it turned solid.
index_t paint(VoxelImage& image, const Sphere& sphere, const std::array<bool, 3>& periodic,
              std::vector<index_t>* painted = nullptr);
/// The same for a cylinder.
index_t paint(VoxelImage& image, const Cylinder& cylinder, const std::array<bool, 3>& periodic,
              std::vector<index_t>* painted = nullptr);

/// An image of `extents` with every shape of `shapes` solid.
VoxelImage shapes_image(const Extents& extents, double voxel_size, const ShapeList& shapes,
                        const std::array<bool, 3>& periodic);

}  // namespace karman::geometry
