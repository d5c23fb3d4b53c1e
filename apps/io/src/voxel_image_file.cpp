#include <karman/core/error.hpp>
#include <karman/io/voxel_image_file.hpp>

#if KARMAN_ENABLE_HDF5
#include "hdf5_handle.hpp"
#endif

#include <algorithm>
#include <system_error>

namespace karman::io {

#if KARMAN_ENABLE_HDF5
geometry::VoxelImage read_hdf5_voxel_image(const Hdf5ImageSpec& spec) {
  const std::string where =
      "karman::io::read_hdf5_voxel_image('" + spec.path.string() + "', dataset '" + spec.dataset + "')";
  geometry::check_voxel_size(spec.voxel_size, where.c_str());
  std::error_code error;
  if (!std::filesystem::is_regular_file(spec.path, error)) throw Error(where + ": no such file");
  detail::silence_hdf5_errors();
  detail::Handle file(H5Fopen(spec.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                      where + ": not an HDF5 file, or unreadable");
  // H5Lexists first: opening a missing dataset would only say that opening failed.
  if (spec.dataset.empty() || H5Lexists(file.get(), spec.dataset.c_str(), H5P_DEFAULT) <= 0) {
    throw Error(where + ": the file has no dataset of that name");
  }
  detail::Handle dataset(H5Dopen2(file.get(), spec.dataset.c_str(), H5P_DEFAULT), H5Dclose,
                         where + ": cannot open the dataset");
  detail::Handle type(H5Dget_type(dataset.get()), H5Tclose, where + ": cannot read the dataset's type");
  if (H5Tget_class(type.get()) != H5T_INTEGER) {
    throw Error(where + ": the dataset is not of an integer type (a voxel image is one integer per voxel)");
  }
  detail::Handle space(H5Dget_space(dataset.get()), H5Sclose, where + ": cannot read the dataset's shape");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  require_in_range(where.c_str(), "dataset rank", rank, 2, 3);
  hsize_t shape[3] = {1, 1, 1};
  H5Sget_simple_extent_dims(space.get(), shape, nullptr);
  // HDF5's C order: the last dimension varies fastest, so it is x.
  const hsize_t nx = shape[rank - 1], ny = shape[rank - 2], nz = rank == 3 ? shape[0] : 1;
  const hsize_t max_extent = 1 << 20;
  if (nx > max_extent || ny > max_extent || nz > max_extent) {
    throw Error(where + ": dataset shape " + std::to_string(nz) + " x " + std::to_string(ny) + " x " +
                std::to_string(nx) + " (z, y, x) has an extent above " + std::to_string(max_extent));
  }
  const Extents extents{int(nx), int(ny), int(nz)};
  validate(extents, where.c_str());
  if (spec.expected && !(*spec.expected == extents)) {
    const Extents& e = *spec.expected;
    throw Error(where + ": the dataset is " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
                std::to_string(nz) + " voxels (x, y, z), expected " + std::to_string(e.nx) + " x " +
                std::to_string(e.ny) + " x " + std::to_string(e.nz));
  }
  // Read as stored, size and sign kept (only the byte order made native): converting to uint8
  // clamps, so a signed label -1 ("solid") became 0 ("pore").
  detail::Handle native(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose,
                        where + ": cannot map the dataset's integer type");
  const std::size_t size = H5Tget_size(native.get());
  const std::size_t voxels = std::size_t(extents.size());
  std::vector<unsigned char> stored(voxels * size);
  detail::check(H5Dread(dataset.get(), native.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, stored.data()),
                where + ": cannot read the dataset");
  geometry::VoxelImage image{extents, spec.voxel_size, std::vector<std::uint8_t>(voxels)};
  const bool nonzero_is_solid = spec.encoding == geometry::VoxelEncoding::nonzero_is_solid;
  for (std::size_t v = 0; v < voxels; ++v) {
    // An integer of any size, sign and byte order is zero exactly when all its bytes are.
    const auto first = stored.begin() + std::ptrdiff_t(v * size);
    const bool nonzero = std::any_of(first, first + std::ptrdiff_t(size), [](unsigned char b) { return b != 0; });
    image.solid[v] = std::uint8_t(nonzero == nonzero_is_solid);
  }
  return image;
}
#else
geometry::VoxelImage read_hdf5_voxel_image(const Hdf5ImageSpec& spec) {
  throw Error("karman::io::read_hdf5_voxel_image('" + spec.path.string() +
              "'): this karman was built without HDF5 (KARMAN_ENABLE_HDF5=OFF); reconfigure with "
              "-DKARMAN_ENABLE_HDF5=ON, or give the image as a raw uint8 file");
}
#endif

}  // namespace karman::io
