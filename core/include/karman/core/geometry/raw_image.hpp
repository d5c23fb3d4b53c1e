#pragma once
/// \file raw_image.hpp
/// Voxel images from raw files: nx * ny * nz bytes, x fastest, no header (how micro-CT
/// volumes are commonly shared), with the dimensions and voxel size given by the user.

#include <karman/core/geometry/voxel_image.hpp>

#include <filesystem>

namespace karman::geometry {

/// What describes a raw image file.
struct RawImageSpec {
  std::filesystem::path path;  ///< the file
  Extents extents;             ///< voxels along x, y, z (nz = 1 for a 2D image)
  double voxel_size = 1.0;     ///< edge length of a voxel
  VoxelEncoding encoding = VoxelEncoding::nonzero_is_solid;
};

/// Reads a raw uint8 image. Extents, voxel size, the file's existence and its size
/// (exactly nx * ny * nz bytes) are checked before the image is allocated; each failure is a
/// karman::Error naming the value and what was expected.
VoxelImage read_raw_image(const RawImageSpec& spec);

}  // namespace karman::geometry
