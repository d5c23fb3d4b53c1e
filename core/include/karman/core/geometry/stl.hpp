#pragma once
/// \file stl.hpp
/// STL surfaces (ASCII or binary) voxelised inside/outside: an obstacle whose inside is solid,
/// or a vessel whose inside is the fluid.

#include <karman/core/geometry/voxel_image.hpp>

#include <array>
#include <filesystem>
#include <vector>

namespace karman::geometry {

/// A triangle of an STL surface; normals are not kept (inside is decided by crossings).
struct Triangle {
  std::array<std::array<double, 3>, 3> vertices{};
};

/// Reads an STL file, binary (80-byte header, uint32 count, 50 bytes a triangle, detected by
/// its exact size) or ASCII ("solid ... facet ... vertex x y z ... endsolid"). Throws
/// karman::Error for a missing file, a truncated binary file, a malformed ASCII line (its
/// number given) or a file without triangles.
std::vector<Triangle> read_stl(const std::filesystem::path& path);

/// What the inside of a closed surface is.
enum class StlInside {
  solid,  ///< an obstacle: inside solid, outside fluid
  fluid   ///< a vessel: inside fluid, outside solid
};

/// Where the surface sits in the image: voxel (i, j, k) has its centre at
/// origin + (i + 1/2, j + 1/2, k + 1/2) * voxel_size in the surface's coordinates.
struct StlPlacement {
  std::array<double, 3> origin{};  ///< surface coordinates of the image's corner
  double voxel_size = 1.0;         ///< in the surface's length unit
};

/// Voxelises a closed surface into a 3D image: a voxel is inside when a ray from its centre
/// along +x crosses the surface an odd number of times (rays are moved off the voxel centres
/// by far less than a voxel, so that none runs exactly through an edge or vertex). Throws
/// karman::Error for 2D extents, a bad placement, or a surface that is not closed (a row of
/// voxels crossing it an odd number of times), naming the row.
VoxelImage voxelise(const std::vector<Triangle>& surface, const Extents& extents, const StlPlacement& placement,
                    StlInside inside);

}  // namespace karman::geometry
