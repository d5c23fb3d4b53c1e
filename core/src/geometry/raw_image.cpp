#include <karman/core/error.hpp>
#include <karman/core/geometry/raw_image.hpp>

#include <fstream>
#include <system_error>

namespace karman::geometry {

VoxelImage read_raw_image(const RawImageSpec& spec) {
  const std::string where = "karman::geometry::read_raw_image('" + spec.path.string() + "')";
  validate(spec.extents, where.c_str());
  check_voxel_size(spec.voxel_size, where.c_str());
  std::error_code error;
  if (!std::filesystem::is_regular_file(spec.path, error)) {
    throw Error(where +
                (std::filesystem::exists(spec.path, error) ? ": not a regular file (a device, FIFO or directory)"
                                                           : ": no such file") +
                " (a raw image is a regular file of nx * ny * nz bytes)");
  }
  const auto bytes = std::filesystem::file_size(spec.path, error);
  if (error) throw Error(where + ": cannot read its size: " + error.message());
  const Extents& e = spec.extents;
  if (index_t(bytes) != e.size()) {
    throw Error(where + ": the file holds " + std::to_string(bytes) + " bytes, but " + std::to_string(e.nx) + " x " +
                std::to_string(e.ny) + " x " + std::to_string(e.nz) + " voxels of one byte need " +
                std::to_string(e.size()) + " (wrong dimensions, or not a headerless uint8 image)");
  }
  std::ifstream in(spec.path, std::ios::binary);
  if (!in) throw Error(where + ": cannot open it");
  VoxelImage image{e, spec.voxel_size, std::vector<std::uint8_t>(std::size_t(e.size()))};
  in.read(reinterpret_cast<char*>(image.solid.data()), std::streamsize(image.solid.size()));
  if (in.gcount() != std::streamsize(image.solid.size())) throw Error(where + ": read fewer bytes than its size");
  const bool nonzero_is_solid = spec.encoding == VoxelEncoding::nonzero_is_solid;
  for (auto& v : image.solid) v = std::uint8_t((v != 0) == nonzero_is_solid);
  return image;
}

}  // namespace karman::geometry
