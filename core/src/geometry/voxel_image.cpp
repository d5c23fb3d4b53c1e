#include <karman/core/error.hpp>
#include <karman/core/geometry/voxel_image.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace karman::geometry {

index_t VoxelImage::fluid_voxels() const { return index_t(std::count(solid.begin(), solid.end(), std::uint8_t(0))); }

double VoxelImage::porosity() const { return solid.empty() ? 0.0 : double(fluid_voxels()) / double(solid.size()); }

void check_voxel_size(double voxel_size, const char* where) {
  if (!(std::isfinite(voxel_size) && voxel_size > 0)) {
    std::ostringstream msg;
    msg << where << ": voxel size = " << voxel_size << " must be finite and > 0";
    throw Error(msg.str());
  }
}

VoxelImage fluid_image(const Extents& extents, double voxel_size, const char* where) {
  validate(extents, where);
  check_voxel_size(voxel_size, where);
  return {extents, voxel_size, std::vector<std::uint8_t>(std::size_t(extents.size()), 0)};
}

}  // namespace karman::geometry
