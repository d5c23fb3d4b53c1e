#pragma once
/// \file checkpoint_file.hpp
/// One rank's checkpoint file: the box of the global grid the rank owns (a slab of whole planes,
/// or a Cartesian block of --ranks-per-axis), each voxel a record of `components` values (the populations) and one
/// 32-bit flag word, with the step, the run's configuration and a checksum of each; written atomically (temporary file,
/// fsync, rename) so a reader sees a complete file or none. karman_io stays ignorant of lattices: the values and flags
/// are opaque words here.

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace karman::io {

/// What one checkpoint file holds.
struct CheckpointBox {
  long long step = 0;                         ///< time steps done
  std::array<long long, 3> global_extents{};  ///< the whole grid, nx, ny, nz
  std::array<long long, 3> box_begin{};       ///< global coordinates of the box's first voxel
  std::array<long long, 3> box_extents{};     ///< voxels of the box along x, y, z (1 along z in 2D)
  int components = 0;                         ///< values per voxel (populations Q)
  int value_size = 0;                         ///< bytes per value: 2 (FP16 storage words), 4 or 8
  std::string configuration;                  ///< the run's configuration, JSON text
  std::vector<std::byte> values;              ///< (voxel, component) values, voxels x fastest
  std::vector<std::uint32_t> flags;           ///< one flag word per voxel, voxels x fastest
  std::uint64_t checksum = 0;                 ///< checksum(values) as written
  std::uint64_t flags_checksum = 0;           ///< checksum(flags) as written
  /// Voxels of the box: the length of `flags`.
  std::size_t voxels() const;
  /// Bytes of `values` the header promises.
  std::size_t expected_bytes() const;
};

/// 64-bit FNV-1a over the bytes, eight at a time: cheap next to the write, and it catches the
/// flipped or lost bytes of a damaged file.
std::uint64_t checksum(const std::byte* data, std::size_t bytes);

/// Writes `box` to `path` through a temporary file in the same directory, flushed to disk and
/// then renamed; stores checksum(box.values) and checksum(box.flags). Throws karman::Error naming the path and reason
/// (the temporary file removed). HDF5's own error printing is silenced.
void write_checkpoint_file(const std::filesystem::path& path, const CheckpointBox& box);

/// Reads a file of write_checkpoint_file and verifies its size and checksum; throws
/// karman::Error "checkpoint file '<path>': <what is wrong>" for a missing, truncated, foreign
/// or corrupted file. With `values` false only the header is read (no values, no flags).
CheckpointBox read_checkpoint_file(const std::filesystem::path& path, bool values = true);

/// Flushes a directory's entries (renames, creations) to disk; best effort.
void sync_directory(const std::filesystem::path& directory);

/// `directory` / `name` for a file a checkpoint manifest names, confined to `directory`: throws
/// karman::Error naming `name` when it is empty, absolute, holds a ".." component, or leads
/// (through a symbolic link, of the file or of a folder on the way) outside `directory`. A
/// manifest someone else wrote must not make a restart read their choice of file.
std::filesystem::path file_inside(const std::filesystem::path& directory, const std::string& name);

}  // namespace karman::io
