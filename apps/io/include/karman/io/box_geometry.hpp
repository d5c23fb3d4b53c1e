#pragma once
/// \file box_geometry.hpp
/// Where the global box of cells sits in space, for viewers of the output.

#include <karman/core/extents.hpp>

#include <array>

namespace karman::io {

/// A box of cells in space: cell (i, j, k) spans origin + [i, i + 1) · spacing along each axis,
/// so its value belongs to the cell centre origin + (i + 1/2) · spacing.
struct BoxGeometry {
  Extents extents;                               ///< cells along x, y, z (nz = 1 in 2D)
  std::array<double, 3> spacing{1.0, 1.0, 1.0};  ///< cell size along x, y, z
  std::array<double, 3> origin{0.0, 0.0, 0.0};   ///< lower corner of cell (0, 0, 0), x, y, z
};

/// Checks the extents, a positive finite spacing and a finite origin; throws karman::Error
/// prefixed by `where`.
void validate(const BoxGeometry& box, const char* where);

}  // namespace karman::io
