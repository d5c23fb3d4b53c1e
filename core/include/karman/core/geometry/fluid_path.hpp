#pragma once
/// \file fluid_path.hpp
/// Whether a sample can carry a flow: some fluid at all, and fluid connecting the inlet face
/// to the outlet face along the flow axis (a flood fill), checked before a solver allocates.

#include <karman/core/geometry/voxel_image.hpp>

#include <array>

namespace karman::geometry {

/// True when face-adjacent fluid voxels connect plane 0 to the last plane along `axis`,
/// wrapping around the other axes marked periodic. Face adjacency is the strict choice: fluid
/// meeting only at an edge or corner has no resolved channel to carry flow.
bool has_fluid_path(const VoxelImage& image, int axis, const std::array<bool, 3>& periodic);

/// Throws karman::Error (prefixed by `where`) when the image is all solid, or when no fluid
/// path crosses it along `axis` (see has_fluid_path); the message gives the porosity.
void require_fluid_path(const VoxelImage& image, int axis, const std::array<bool, 3>& periodic, const char* where);

}  // namespace karman::geometry
