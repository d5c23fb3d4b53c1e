#pragma once
/// \file global_fields.hpp
/// The final density and velocity of a whole box on the host, as a run gathers them on rank 0
/// for its field files and its case's analysis (cases/cylinder_analysis.hpp).

#include <karman/core/extents.hpp>

#include <cstddef>
#include <vector>

namespace karman::lbm {

/// Density and velocity of every voxel of the box in (z, y, x) order, x fastest; density 0 in
/// solid voxels.
struct GlobalFields {
  Extents extents;
  std::vector<double> rho, ux, uy, uz;
  /// Linear index of (x, y, z).
  std::size_t at(int x, int y, int z) const { return std::size_t(extents.index(x, y, z)); }
};

}  // namespace karman::lbm
