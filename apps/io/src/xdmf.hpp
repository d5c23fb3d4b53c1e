#pragma once
/// \file xdmf.hpp
/// The light-data XML that tells ParaView where the HDF5 arrays are and what grid they live on.

#include <array>
#include <string>
#include <vector>

namespace karman::detail {

/// One uniform grid: a whole box in one file, or one rank's slab in its own file.
struct XdmfPiece {
  std::string file;                      ///< HDF5 file, relative to the XDMF file
  std::array<int, 3> cells{};            ///< cells along x, y, z
  std::array<double, 3> first_centre{};  ///< centre of the first cell, x, y, z
};

/// One output step: its number, its time and the grids holding its data.
struct XdmfStep {
  int step = 0;
  double time = 0.0;
  std::vector<XdmfPiece> pieces;  ///< one, or one per rank (a spatial collection)
};

/// An XDMF 2 document: a temporal collection of `steps`, each a 3DCoRectMesh (or a spatial
/// collection of them) with a scalar attribute per name of `datasets` read from `/<name>`.
std::string xdmf_document(const std::vector<XdmfStep>& steps, const std::vector<std::string>& datasets,
                          const std::array<double, 3>& spacing);

}  // namespace karman::detail
