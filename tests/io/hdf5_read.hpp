#pragma once
// Reads HDF5 files back through the C API, independently of the writer under test.

#include <hdf5.h>

#include <filesystem>
#include <string>
#include <vector>

namespace karman::io_test {

/// A dataset's shape (slowest first) and values.
struct Dataset {
  std::vector<hsize_t> shape;
  std::vector<double> values;
};

/// The double dataset `name` of `file`; an empty shape when the file or dataset cannot be read.
inline Dataset read_dataset(const std::filesystem::path& file, const std::string& name) {
  Dataset result;
  const hid_t h5file = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (h5file < 0) return result;
  const hid_t dataset = H5Dopen2(h5file, name.c_str(), H5P_DEFAULT);
  if (dataset >= 0) {
    const hid_t space = H5Dget_space(dataset);
    result.shape.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, result.shape.data(), nullptr);
    result.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    if (H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, result.values.data()) < 0) {
      result.shape.clear();
    }
    H5Sclose(space);
    H5Dclose(dataset);
  }
  H5Fclose(h5file);
  return result;
}

/// The root attribute `name` of `file` converted to `memory_type`, `count` values.
template <class T>
std::vector<T> read_attribute(const std::filesystem::path& file, const char* name, hid_t memory_type,
                              std::size_t count) {
  std::vector<T> values(count);
  const hid_t h5file = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (h5file < 0) return {};
  const hid_t attribute = H5Aopen(h5file, name, H5P_DEFAULT);
  const bool ok = attribute >= 0 && H5Aread(attribute, memory_type, values.data()) >= 0;
  if (attribute >= 0) H5Aclose(attribute);
  H5Fclose(h5file);
  return ok ? values : std::vector<T>{};
}

}  // namespace karman::io_test
