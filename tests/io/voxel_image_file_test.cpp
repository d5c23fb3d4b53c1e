// Voxel images from HDF5 datasets: good images read in x-fastest order with either encoding;
// missing files and datasets, wrong types, ranks and dimensions refused with the reason.
#include "../common/expect_error.hpp"

#include <karman/core/error.hpp>
#include <karman/io/voxel_image_file.hpp>

#include "io_test_support.hpp"

#include <hdf5.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace karman;

/// Writes `values` as dataset `name` of `file_type` and shape `shape` (slowest first).
void write_dataset(hid_t file, const char* name, hid_t file_type, hid_t memory_type, const std::vector<hsize_t>& shape,
                   const void* values) {
  const hid_t space = H5Screate_simple(int(shape.size()), shape.data(), nullptr);
  const hid_t dataset = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(dataset, 0) << name;
  ASSERT_GE(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0) << name;
  H5Dclose(dataset);
  H5Sclose(space);
}

using karman::test::expect_error;

class VoxelImageFile : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = io_test::make_scratch_directory("voxel_image");
    m_file = m_dir / "sample.h5";
    for (std::size_t v = 0; v < m_bytes.size(); ++v) m_bytes[v] = std::uint8_t(v % 3 == 0 ? 0 : v % 7 + 1);
    for (std::size_t v = 0; v < m_shorts.size(); ++v) m_shorts[v] = std::int16_t(v % 4 == 1 ? 0 : 300 + int(v));
    const std::vector<float> floats(6, 1.0f);
    const hid_t file = H5Fcreate(m_file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    write_dataset(file, "/image", H5T_STD_U8LE, H5T_NATIVE_UINT8, {3, 4, 5}, m_bytes.data());
    const hid_t group = H5Gcreate2(file, "/scan", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    write_dataset(group, "slice", H5T_STD_I16LE, H5T_NATIVE_INT16, {6, 7}, m_shorts.data());
    H5Gclose(group);
    write_dataset(file, "/floats", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {2, 3}, floats.data());
    write_dataset(file, "/line", H5T_STD_U8LE, H5T_NATIVE_UINT8, {6}, m_bytes.data());
    H5Fclose(file);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir, m_file;
  std::vector<std::uint8_t> m_bytes = std::vector<std::uint8_t>(60);
  std::vector<std::int16_t> m_shorts = std::vector<std::int16_t>(42);
};

TEST_F(VoxelImageFile, ReadsThreeDimensionalImageXFastest) {
  const auto image = io::read_hdf5_voxel_image({m_file, "/image", 0.25, {}, Extents{5, 4, 3}});
  EXPECT_EQ(image.extents, (Extents{5, 4, 3}));
  EXPECT_EQ(image.voxel_size, 0.25);
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 5; ++i) EXPECT_EQ(image.is_solid(i, j, k), m_bytes[std::size_t(i + 5 * (j + 4 * k))] != 0);
}

TEST_F(VoxelImageFile, ReadsTwoDimensionalSignedImageInAGroup) {
  const auto image =
      io::read_hdf5_voxel_image({m_file, "/scan/slice", 1.0, geometry::VoxelEncoding::zero_is_solid, std::nullopt});
  EXPECT_EQ(image.extents, (Extents{7, 6, 1}));
  for (std::size_t v = 0; v < m_shorts.size(); ++v) EXPECT_EQ(image.solid[v] != 0, m_shorts[v] == 0) << v;
}

TEST_F(VoxelImageFile, RefusesBadInput) {
  expect_error(
      [&] {
        io::read_hdf5_voxel_image({m_file, "/image", 1.0, {}, Extents{5, 4, 4}});
      },
      {"5 x 4 x 3 voxels", "expected 5 x 4 x 4"});
  expect_error(
      [&] {
        io::read_hdf5_voxel_image({m_file, "/segmented", 1.0, {}, std::nullopt});
      },
      {"dataset '/segmented'", "no dataset of that name"});
  expect_error(
      [&] {
        io::read_hdf5_voxel_image({m_dir / "none.h5", "/image", 1.0, {}, std::nullopt});
      },
      {"none.h5", "no such file"});
  expect_error(
      [&] {
        io::read_hdf5_voxel_image({m_file, "/floats", 1.0, {}, std::nullopt});
      },
      {"not of an integer type"});
  expect_error(
      [&] {
        io::read_hdf5_voxel_image({m_file, "/line", 1.0, {}, std::nullopt});
      },
      {"dataset rank = 1", "[2, 3]"});
  expect_error([&] { io::read_hdf5_voxel_image({m_file, "/image", 0.0, {}, std::nullopt}); }, {"voxel size = 0"});
  const auto text = m_dir / "text.h5";
  std::ofstream(text) << "not hdf5\n";
  expect_error([&] { io::read_hdf5_voxel_image({text, "/image", 1.0, {}, std::nullopt}); }, {"not an HDF5 file"});
}

}  // namespace

// Every integer type decoded as stored (issue 51): a signed -1 is a label like any other nonzero
// one, not 0 after a clamp to uint8; large unsigned values are not zero either.
TEST(VoxelImageTypes, EveryIntegerTypeAndSignDecodedAsStored) {
  const auto dir = io_test::make_scratch_directory("voxel_types");
  const auto path = dir / "types.h5";
  const std::vector<std::int8_t> i8 = {-1, 0, 5, -128};
  const std::vector<std::int16_t> i16 = {-300, 0, -1, 1};
  const std::vector<std::int32_t> i32 = {-1, 0, 256, -65536};
  const std::vector<std::int64_t> i64 = {-1, 0, std::int64_t(1) << 40, 0};
  const std::vector<std::uint16_t> u16 = {0, 65535, 256, 0};
  const std::vector<std::uint64_t> u64 = {0, std::uint64_t(1) << 63, 1, 0};
  const std::vector<std::uint8_t> i16_big = {0xff, 0xff, 0, 0, 0x01, 0, 0, 0};  // -1, 0, 256, 0 big-endian
  const struct {
    const char* name;
    hid_t file_type, memory_type;
    const void* values;
    std::vector<bool> nonzero;
  } cases[] = {
      {"/i8", H5T_STD_I8LE, H5T_NATIVE_INT8, i8.data(), {true, false, true, true}},
      {"/i16", H5T_STD_I16LE, H5T_NATIVE_INT16, i16.data(), {true, false, true, true}},
      {"/i32", H5T_STD_I32LE, H5T_NATIVE_INT32, i32.data(), {true, false, true, true}},
      {"/i64", H5T_STD_I64LE, H5T_NATIVE_INT64, i64.data(), {true, false, true, false}},
      {"/u16", H5T_STD_U16LE, H5T_NATIVE_UINT16, u16.data(), {false, true, true, false}},
      {"/u64", H5T_STD_U64LE, H5T_NATIVE_UINT64, u64.data(), {false, true, true, false}},
      {"/i16be", H5T_STD_I16BE, H5T_STD_I16BE, i16_big.data(), {true, false, true, false}},
  };
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  for (const auto& c : cases) write_dataset(file, c.name, c.file_type, c.memory_type, {2, 2}, c.values);
  H5Fclose(file);
  for (const auto& c : cases) {
    for (const auto encoding : {geometry::VoxelEncoding::nonzero_is_solid, geometry::VoxelEncoding::zero_is_solid}) {
      const auto image = io::read_hdf5_voxel_image({path, c.name, 1.0, encoding, std::nullopt});
      const bool nonzero_is_solid = encoding == geometry::VoxelEncoding::nonzero_is_solid;
      for (std::size_t v = 0; v < 4; ++v) {
        EXPECT_EQ(image.solid[v] != 0, c.nonzero[v] == nonzero_is_solid) << c.name << " voxel " << v;
      }
    }
  }
  std::filesystem::remove_all(dir);
}
