// One rank's checkpoint file: populations of 2 (FP16 storage words), 4 and 8 bytes and the flag
// words come back bit for bit with their header; a flipped population or flag is refused by its
// checksum, a truncated file by name; a box whose sizes disagree with its header or lie outside the grid is not
// written.
#include "../common/expect_error.hpp"

#include <karman/io/checkpoint_file.hpp>

#include "io_test_support.hpp"

#include <hdf5.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace karman;
using karman::test::expect_error;

/// A 5 x 3 block from (1, 2, 0) of a 6 x 5 grid (2D), `components` values of `value_size` bytes
/// per voxel, every byte and flag word distinct.
io::CheckpointBox make_box(int value_size, int components) {
  io::CheckpointBox box;
  box.step = 1234;
  box.global_extents = {6, 5, 1};
  box.box_begin = {1, 2, 0};
  box.box_extents = {5, 3, 1};
  box.components = components;
  box.value_size = value_size;
  box.configuration = R"({"case":"test"})";
  box.values.resize(box.expected_bytes());
  for (std::size_t b = 0; b < box.values.size(); ++b) box.values[b] = std::byte((b * 37 + 11) % 251);
  box.flags.resize(box.voxels());
  for (std::size_t v = 0; v < box.flags.size(); ++v) box.flags[v] = std::uint32_t(0x9e3779b9u * (v + 1));
  return box;
}

/// Overwrites one word of dataset `name` of the file at `path` (bypassing the writer).
template <class Word>
void flip_word(const std::filesystem::path& path, const char* name, hid_t memory_type, std::size_t index) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
  ASSERT_GE(dataset, 0) << name;
  const hid_t space = H5Dget_space(dataset);
  std::vector<Word> words(std::size_t(H5Sget_simple_extent_npoints(space)));
  ASSERT_GE(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, words.data()), 0);
  words.at(index) ^= Word(1);
  ASSERT_GE(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, words.data()), 0);
  H5Sclose(space);
  H5Dclose(dataset);
  H5Fclose(file);
}

class CheckpointFile : public ::testing::Test {
 protected:
  void SetUp() override { m_dir = io_test::make_scratch_directory("checkpoint_file"); }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(CheckpointFile, RoundTripsEveryValueSizeAndTheFlagsBitwise) {
  for (int value_size : {2, 4, 8}) {
    const io::CheckpointBox written = make_box(value_size, 9);
    const auto path = m_dir / ("rank_" + std::to_string(value_size) + ".h5");
    io::write_checkpoint_file(path, written);
    const io::CheckpointBox header = io::read_checkpoint_file(path, false);
    EXPECT_EQ(header.step, 1234);
    EXPECT_EQ(header.value_size, value_size);
    EXPECT_TRUE(header.values.empty() && header.flags.empty());
    const io::CheckpointBox read = io::read_checkpoint_file(path);
    EXPECT_EQ(read.global_extents, written.global_extents);
    EXPECT_EQ(read.box_begin, written.box_begin);
    EXPECT_EQ(read.box_extents, written.box_extents);
    EXPECT_EQ(read.configuration, written.configuration);
    ASSERT_EQ(read.values.size(), written.values.size());
    EXPECT_EQ(std::memcmp(read.values.data(), written.values.data(), read.values.size()), 0) << value_size;
    EXPECT_EQ(read.flags, written.flags);
    EXPECT_EQ(read.checksum, io::checksum(written.values.data(), written.values.size()));
  }
  // Only the finished file is left: the temporary one was renamed.
  EXPECT_EQ(io_test::list_directory(m_dir), (std::set<std::string>{"rank_2.h5", "rank_4.h5", "rank_8.h5"}));
}

TEST_F(CheckpointFile, RefusesAFlippedPopulationOrFlagAndATruncatedFile) {
  const auto populations = m_dir / "populations.h5", flags = m_dir / "flags.h5", truncated = m_dir / "short.h5";
  for (const auto& path : {populations, flags, truncated}) io::write_checkpoint_file(path, make_box(2, 9));
  flip_word<std::uint16_t>(populations, "populations", H5T_NATIVE_UINT16, 17);
  flip_word<std::uint32_t>(flags, "flags", H5T_NATIVE_UINT32, 7);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(truncated) / 2);
  expect_error([&] { io::read_checkpoint_file(populations); }, {"populations.h5", "checksum mismatch, the file"});
  expect_error([&] { io::read_checkpoint_file(flags); }, {"flags.h5", "checksum mismatch in its flags"});
  expect_error([&] { io::read_checkpoint_file(truncated); }, {"short.h5"});
}

TEST_F(CheckpointFile, RefusesABoxThatDisagreesWithItsHeaderOrTheGrid) {
  io::CheckpointBox no_flags = make_box(4, 9);
  no_flags.flags.pop_back();
  expect_error([&] { io::write_checkpoint_file(m_dir / "a.h5", no_flags); }, {"a.h5", "14 flags", "promises", "15"});
  io::CheckpointBox odd_size = make_box(4, 9);
  odd_size.value_size = 3;
  expect_error([&] { io::write_checkpoint_file(m_dir / "b.h5", odd_size); }, {"b.h5", "value size 3", "2, 4 or 8"});
  io::CheckpointBox outside = make_box(4, 9);
  outside.box_begin[1] = 3;  // rows 3 to 5 of a grid of 5
  expect_error([&] { io::write_checkpoint_file(m_dir / "c.h5", outside); },
               {"c.h5", "box of 3 voxels from 3 along axis 1", "grid's 5"});
  EXPECT_TRUE(io_test::list_directory(m_dir).empty());
}

}  // namespace
