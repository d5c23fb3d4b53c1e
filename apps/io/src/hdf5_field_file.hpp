#pragma once
/// \file hdf5_field_file.hpp
/// The HDF5 side of FieldWriter: one file of double datasets, written by one process or, with
/// parallel HDF5, by every rank of a communicator into hyperslabs of one shared file.

#include <karman/io/box_geometry.hpp>
#include <karman/io/field_slab.hpp>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#if KARMAN_ENABLE_MPI
#include <mpi.h>
#endif

namespace karman::detail {

/// One HDF5 file of a field write as one rank sees it; shapes are (z, y, x).
struct FieldFile {
  std::filesystem::path path;                  ///< created, or truncated if it exists
  std::array<unsigned long long, 3> shape{};   ///< every dataset's shape
  std::array<unsigned long long, 3> offset{};  ///< where this rank's slab starts in a dataset
  std::array<unsigned long long, 3> count{};   ///< this rank's slab shape
  int slab_begin = 0;                          ///< first global plane the file holds (attribute)
  int slab_planes = 0;                         ///< planes the file holds (attribute)
};

/// Writes `slab` (one array per name of `names`) into `file` alone, with the default (POSIX) driver.
void write_field_file(const FieldFile& file, const io::BoxGeometry& box, const std::vector<std::string>& names,
                      int step, double time, const io::FieldSlab& slab);

#if KARMAN_ENABLE_MPI && KARMAN_HDF5_PARALLEL
/// Every rank of `comm` writes its `slab` into `file` through MPI-IO with collective transfers.
void write_shared_field_file(const FieldFile& file, const io::BoxGeometry& box, const std::vector<std::string>& names,
                             int step, double time, const io::FieldSlab& slab, MPI_Comm comm);
#endif

}  // namespace karman::detail
