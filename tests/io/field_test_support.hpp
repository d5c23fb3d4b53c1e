#pragma once
// Building test slabs and reassembling the whole box from whatever files a FieldWriter wrote.

#include <karman/io/field_slab.hpp>

#include "hdf5_read.hpp"
#include "io_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace karman::io_test {

/// A slab's arrays and the FieldSlab pointing into them.
struct SlabData {
  std::vector<std::vector<double>> arrays;
  io::FieldSlab slab;
};

/// Planes [begin, begin + planes) of `datasets` arrays holding test_value(dataset, step, global cell).
inline SlabData make_slab(const Extents& extents, int datasets, int step, int begin, int planes) {
  const index_t plane = extents.plane_size();
  SlabData data;
  data.arrays.resize(static_cast<std::size_t>(datasets));
  for (int k = 0; k < datasets; ++k) {
    for (index_t i = 0; i < planes * plane; ++i) data.arrays[k].push_back(test_value(k, step, begin * plane + i));
  }
  data.slab.slab_begin = begin;
  data.slab.slab_planes = planes;
  for (const auto& array : data.arrays) data.slab.datasets.push_back({array.data(), array.size()});
  return data;
}

/// Dataset `name` of the whole box, reassembled from `files` in `directory` (one file of the whole
/// box, or one slab per file as its slab_begin/slab_planes attributes say); each file's dataset
/// shape is checked. Cells no file covered stay NaN.
inline std::vector<double> read_whole_box(const std::filesystem::path& directory, const std::vector<std::string>& files,
                                          const std::string& name, const Extents& extents) {
  std::vector<double> whole(static_cast<std::size_t>(extents.size()), std::numeric_limits<double>::quiet_NaN());
  const int axis = extents.slab_axis();
  const index_t plane = extents.plane_size();
  for (const std::string& file : files) {
    const auto begin = read_attribute<int>(directory / file, "slab_begin", H5T_NATIVE_INT, 1);
    const auto planes = read_attribute<int>(directory / file, "slab_planes", H5T_NATIVE_INT, 1);
    const Dataset dataset = read_dataset(directory / file, name);
    if (begin.size() != 1 || planes.size() != 1) {
      ADD_FAILURE() << file << ": no slab_begin/slab_planes attributes";
      continue;
    }
    std::vector<hsize_t> shape = {hsize_t(extents.nz), hsize_t(extents.ny), hsize_t(extents.nx)};
    shape[2 - axis] = hsize_t(planes[0]);
    EXPECT_EQ(dataset.shape, shape) << file << ":/" << name;
    if (dataset.shape != shape) continue;
    std::copy(dataset.values.begin(), dataset.values.end(), whole.begin() + begin[0] * plane);
  }
  return whole;
}

/// Every cell of `whole` holds test_value(dataset, step, cell); reports the first few misses.
inline void expect_test_values(const std::vector<double>& whole, int dataset, int step, const std::string& what) {
  int misses = 0;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const double expected = test_value(dataset, step, static_cast<long long>(i));
    if (!(whole[i] == expected) && ++misses <= 5) {
      ADD_FAILURE() << what << ": cell " << i << " holds " << whole[i] << ", expected " << expected;
    }
  }
  EXPECT_EQ(misses, 0) << what;
}

}  // namespace karman::io_test
