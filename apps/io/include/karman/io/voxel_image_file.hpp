#pragma once
/// \file voxel_image_file.hpp
/// Voxel images (micro-CT style sample geometry) from an HDF5 dataset: an integer dataset of
/// shape (nz, ny, nx) or (ny, nx), x fastest as HDF5's C order stores it.

#include <karman/core/geometry/voxel_image.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace karman::io {

/// What describes an image in an HDF5 file.
struct Hdf5ImageSpec {
  std::filesystem::path path;  ///< the file
  std::string dataset;         ///< dataset name, e.g. "/segmented" or "/group/image"
  double voxel_size = 1.0;     ///< edge length of a voxel
  geometry::VoxelEncoding encoding = geometry::VoxelEncoding::nonzero_is_solid;
  std::optional<Extents> expected;  ///< when given, the dataset must have these extents
};

/// Reads the image. The file, the dataset, its integer type, its rank (2 or 3), its extents
/// (against `expected` when given) and the voxel size are checked before the image is
/// allocated; each failure is a karman::Error naming the value and what was expected. Values
/// are converted to uint8 by HDF5, which clips: above 255 becomes 255, negative becomes 0.
geometry::VoxelImage read_hdf5_voxel_image(const Hdf5ImageSpec& spec);

}  // namespace karman::io
