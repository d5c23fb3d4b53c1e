#pragma once
/// \file voxel_image.hpp
/// A voxel image of a sample, what users bring (micro-CT scans, generated packs): one byte
/// per voxel of a box, solid or fluid, and the voxel's edge length.

#include <karman/core/extents.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace karman::geometry {

/// How the bytes of an image file say solid.
enum class VoxelEncoding {
  nonzero_is_solid,  ///< 0 is pore (fluid), anything else solid: segmented micro-CT images
  zero_is_solid      ///< 0 is solid, anything else fluid: images that mark the pore space
};

/// Name of an encoding as used in options and messages.
constexpr std::string_view name(VoxelEncoding e) {
  return e == VoxelEncoding::nonzero_is_solid ? "nonzero_is_solid" : "zero_is_solid";
}

/// One byte per voxel of `extents`, x fastest: 1 solid, 0 fluid.
struct VoxelImage {
  Extents extents;                  ///< voxels along x, y, z (nz = 1 in 2D)
  double voxel_size = 1.0;          ///< edge length of a voxel in the user's length unit
  std::vector<std::uint8_t> solid;  ///< extents.size() bytes

  /// True when voxel (x, y, z) is solid.
  bool is_solid(int x, int y, int z) const { return solid[std::size_t(extents.index(x, y, z))] != 0; }
  /// Number of fluid voxels.
  index_t fluid_voxels() const;
  /// Fluid voxels over all voxels.
  double porosity() const;
};

/// An all-fluid image of `extents`; throws karman::Error for extents or a voxel size out of
/// range (`where` prefixes the message).
VoxelImage fluid_image(const Extents& extents, double voxel_size, const char* where);

/// Throws karman::Error unless `voxel_size` is finite and positive.
void check_voxel_size(double voxel_size, const char* where);

}  // namespace karman::geometry
