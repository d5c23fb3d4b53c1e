#include <karman/core/error.hpp>
#include <karman/io/checkpoint_file.hpp>

#include "unique_file.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#if KARMAN_ENABLE_HDF5
#include "hdf5_handle.hpp"
#endif

namespace karman::io {

std::filesystem::path file_inside(const std::filesystem::path& directory, const std::string& name) {
  const std::filesystem::path relative(name);
  const std::string where = "checkpoint '" + directory.string() + "': file name '" + name + "'";
  if (name.empty() || relative.is_absolute() || relative.has_root_name()) {
    throw Error(where + " is empty or absolute; a checkpoint reads only files inside its directory");
  }
  for (const auto& part : relative) {
    if (part == "..") throw Error(where + " leads out of its directory (..)");
  }
  // Links resolved: the file must still lie below the directory, itself resolved.
  std::error_code ec;
  const std::filesystem::path root = std::filesystem::weakly_canonical(directory, ec);
  const std::filesystem::path file = std::filesystem::weakly_canonical(directory / relative, ec);
  if (ec) throw Error(where + ": cannot resolve it: " + ec.message());
  const auto mismatch = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (mismatch.first != root.end() || mismatch.second == file.end()) {
    throw Error(where + " is a link to '" + file.string() + "', outside the checkpoint's directory");
  }
  return directory / relative;
}

std::size_t CheckpointBox::voxels() const {
  return std::size_t(box_extents[0]) * std::size_t(box_extents[1]) * std::size_t(box_extents[2]);
}

std::size_t CheckpointBox::expected_bytes() const {
  return voxels() * std::size_t(components) * std::size_t(value_size);
}

std::uint64_t checksum(const std::byte* data, std::size_t bytes) {
  constexpr std::uint64_t prime = 0x100000001b3ULL;
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, data + i, 8);
    hash = (hash ^ word) * prime;
  }
  for (; i < bytes; ++i) hash = (hash ^ std::uint64_t(data[i])) * prime;
  return hash;
}

void sync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

#if KARMAN_ENABLE_HDF5
namespace {

constexpr const char* format_name = "karman-checkpoint-3";

void write_attribute(hid_t file, const char* name, hid_t type, const void* values, hsize_t count,
                     const std::string& where) {
  const std::string failure = where + ": cannot write attribute '" + name + "'";
  detail::Handle space(count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose, failure);
  detail::Handle attribute(H5Acreate2(file, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, failure);
  detail::check(H5Awrite(attribute.get(), type, values), failure);
}

void write_string(hid_t file, const char* name, const std::string& text, const std::string& where) {
  const std::string failure = where + ": cannot write attribute '" + name + "'";
  detail::Handle type(H5Tcopy(H5T_C_S1), H5Tclose, failure);
  detail::check(H5Tset_size(type.get(), text.size() + 1), failure);
  detail::Handle space(H5Screate(H5S_SCALAR), H5Sclose, failure);
  detail::Handle attribute(H5Acreate2(file, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                           failure);
  detail::check(H5Awrite(attribute.get(), type.get(), text.c_str()), failure);
}

void read_attribute(hid_t file, const char* name, hid_t type, void* values, const std::string& where) {
  const std::string failure = where + ": attribute '" + name + "' missing or unreadable";
  detail::Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, failure);
  detail::check(H5Aread(attribute.get(), type, values), failure);
}

std::string read_string(hid_t file, const char* name, const std::string& where) {
  const std::string failure = where + ": attribute '" + name + "' missing or unreadable";
  detail::Handle attribute(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, failure);
  detail::Handle type(H5Aget_type(attribute.get()), H5Tclose, failure);
  if (H5Tget_class(type.get()) != H5T_STRING) throw Error(failure);
  std::string text(H5Tget_size(type.get()), '\0');
  detail::check(H5Aread(attribute.get(), type.get(), text.data()), failure);
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::uint64_t flags_checksum(const std::vector<std::uint32_t>& flags) {
  return checksum(reinterpret_cast<const std::byte*>(flags.data()), flags.size() * sizeof(std::uint32_t));
}

bool valid_value_size(int value_size) { return value_size == 2 || value_size == 4 || value_size == 8; }
/// FP16 storage words (float16.hpp: shifted, FP16S or FP16C) are stored as they are, as
/// unsigned 16-bit integers: a restart continues bitwise, and no reader mistakes them for IEEE
/// half values.
hid_t file_type(int value_size) {
  return value_size == 2 ? H5T_STD_U16LE : value_size == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
}
hid_t memory_type(int value_size) {
  return value_size == 2 ? H5T_NATIVE_UINT16 : value_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}

void write_dataset(hid_t root, const char* name, hid_t file_type, hid_t memory_type, const hsize_t* shape, int rank,
                   const void* data, const std::string& where) {
  const std::string failure = where + ": cannot write dataset '" + name + "'";
  detail::Handle space(H5Screate_simple(rank, shape, nullptr), H5Sclose, failure);
  detail::Handle dataset(H5Dcreate2(root, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose, failure);
  detail::check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), failure);
  dataset.close(failure);
}

/// Reads dataset `name`, which must hold `count` values, into `data` as `memory_type`; throws for
/// a missing, short or unreadable one.
void read_dataset(hid_t root, const char* name, hid_t memory_type, std::size_t count, void* data,
                  const std::string& where) {
  const std::string failure = where + ": dataset '" + name + "' missing or unreadable (truncated or damaged?)";
  detail::Handle dataset(H5Dopen2(root, name, H5P_DEFAULT), H5Dclose, failure);
  detail::Handle space(H5Dget_space(dataset.get()), H5Sclose, failure);
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points < 0 || std::size_t(points) != count) {
    throw Error(where + ": dataset '" + name + "' holds " + std::to_string(points) + " values, the header promises " +
                std::to_string(count));
  }
  detail::check(H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), failure);
}

/// Throws karman::Error unless the box lies inside the global grid with at least one voxel.
void check_box(const CheckpointBox& box, const std::string& where) {
  for (std::size_t d = 0; d < 3; ++d) {
    if (box.box_extents[d] < 1 || box.box_begin[d] < 0 ||
        box.box_begin[d] + box.box_extents[d] > box.global_extents[d]) {
      throw Error(where + ": box of " + std::to_string(box.box_extents[d]) + " voxels from " +
                  std::to_string(box.box_begin[d]) + " along axis " + std::to_string(d) + " outside the grid's " +
                  std::to_string(box.global_extents[d]));
    }
  }
}

void write_hdf5(const std::filesystem::path& path, const CheckpointBox& box, const std::string& where) {
  detail::FileHandle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5P_DEFAULT,
                          where + ": cannot create it");
  const hid_t root = file.get();
  write_string(root, "format", format_name, where);
  write_attribute(root, "step", H5T_NATIVE_LLONG, &box.step, 1, where);
  write_attribute(root, "global_extents", H5T_NATIVE_LLONG, box.global_extents.data(), 3, where);
  write_attribute(root, "box_begin", H5T_NATIVE_LLONG, box.box_begin.data(), 3, where);
  write_attribute(root, "box_extents", H5T_NATIVE_LLONG, box.box_extents.data(), 3, where);
  write_attribute(root, "components", H5T_NATIVE_INT, &box.components, 1, where);
  write_attribute(root, "value_size", H5T_NATIVE_INT, &box.value_size, 1, where);
  const unsigned long long sums[2] = {checksum(box.values.data(), box.values.size()), flags_checksum(box.flags)};
  write_attribute(root, "checksum_fnv1a64", H5T_NATIVE_ULLONG, &sums[0], 1, where);
  write_attribute(root, "flags_checksum_fnv1a64", H5T_NATIVE_ULLONG, &sums[1], 1, where);
  write_string(root, "configuration", box.configuration, where);
  const hsize_t voxels = box.voxels();
  const hsize_t shape[2] = {voxels, hsize_t(box.components)};
  write_dataset(root, "populations", file_type(box.value_size), memory_type(box.value_size), shape, 2,
                box.values.data(), where);
  write_dataset(root, "flags", H5T_STD_U32LE, H5T_NATIVE_UINT32, &voxels, 1, box.flags.data(), where);
  file.close(where + ": cannot close (flush) it");
}

}  // namespace

void write_checkpoint_file(const std::filesystem::path& path, const CheckpointBox& box) {
  const std::string where = "checkpoint file '" + path.string() + "'";
  if (!valid_value_size(box.value_size)) {
    throw Error(where + ": value size " + std::to_string(box.value_size) + " bytes, accepted: 2, 4 or 8");
  }
  check_box(box, where);
  if (box.values.size() != box.expected_bytes() || box.flags.size() != box.voxels()) {
    throw Error(where + ": " + std::to_string(box.values.size()) + " bytes of values and " +
                std::to_string(box.flags.size()) + " flags, the header promises " +
                std::to_string(box.expected_bytes()) + " and " + std::to_string(box.voxels()));
  }
  // HDF5 reports a full disk only as a failed write; saying so first is clearer.
  struct statvfs fs {};
  const double need =
      double(box.values.size() + box.flags.size() * sizeof(std::uint32_t) + box.configuration.size()) + 65536.0;
  if (::statvfs(path.parent_path().empty() ? "." : path.parent_path().c_str(), &fs) == 0 &&
      double(fs.f_bavail) * double(fs.f_frsize) < need) {
    char text[128];
    std::snprintf(text, sizeof text, "%.0f bytes free, the file needs about %.0f",
                  double(fs.f_bavail) * double(fs.f_frsize), need);
    throw Error(where + ": cannot write it: No space left on device (" + text + "); earlier checkpoints are intact");
  }
  detail::refuse_link(path, where);
  detail::silence_hdf5_errors();
  const detail::UniqueFile temporary =
      detail::create_unique_file(path.parent_path(), "." + path.filename().string() + ".", "karman checkpoint");
  ::close(temporary.fd);
  int error_number = 0;
  try {
    write_hdf5(temporary.path, box, where);
    // HDF5 closed the file but the data may still sit in the page cache: a crash after the
    // rename must not leave a renamed empty file.
    const int fd = ::open(temporary.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) error_number = errno;
    if (fd >= 0) ::close(fd);
  } catch (...) {
    ::unlink(temporary.path.c_str());
    throw;
  }
  if (error_number != 0) {
    ::unlink(temporary.path.c_str());
    throw Error(where + ": cannot write it: " + detail::os_reason(error_number));
  }
  detail::publish_file(temporary.path, path, where);
}

CheckpointBox read_checkpoint_file(const std::filesystem::path& path, bool values) {
  const std::string where = "checkpoint file '" + path.string() + "'";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(where + ": no such file");
  detail::silence_hdf5_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(where + ": not an HDF5 file (truncated or overwritten?)");
  detail::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                      where + ": cannot open it (truncated or damaged?)");
  const hid_t root = file.get();
  if (H5Aexists(root, "format") <= 0 || read_string(root, "format", where) != format_name) {
    throw Error(where + ": not a Karman checkpoint (no attribute format = " + format_name + ")");
  }
  CheckpointBox box;
  read_attribute(root, "step", H5T_NATIVE_LLONG, &box.step, where);
  read_attribute(root, "global_extents", H5T_NATIVE_LLONG, box.global_extents.data(), where);
  read_attribute(root, "box_begin", H5T_NATIVE_LLONG, box.box_begin.data(), where);
  read_attribute(root, "box_extents", H5T_NATIVE_LLONG, box.box_extents.data(), where);
  read_attribute(root, "components", H5T_NATIVE_INT, &box.components, where);
  read_attribute(root, "value_size", H5T_NATIVE_INT, &box.value_size, where);
  unsigned long long sums[2] = {0, 0};
  read_attribute(root, "checksum_fnv1a64", H5T_NATIVE_ULLONG, &sums[0], where);
  read_attribute(root, "flags_checksum_fnv1a64", H5T_NATIVE_ULLONG, &sums[1], where);
  box.checksum = sums[0];
  box.flags_checksum = sums[1];
  box.configuration = read_string(root, "configuration", where);
  if (!valid_value_size(box.value_size)) {
    throw Error(where + ": value size " + std::to_string(box.value_size) + " bytes, accepted: 2, 4 or 8");
  }
  check_box(box, where);
  if (!values) return box;
  box.values.resize(box.expected_bytes());
  read_dataset(root, "populations", memory_type(box.value_size), box.expected_bytes() / std::size_t(box.value_size),
               box.values.data(), where);
  if (checksum(box.values.data(), box.values.size()) != box.checksum) {
    throw Error(where + ": checksum mismatch, the file is corrupted");
  }
  box.flags.resize(box.voxels());
  read_dataset(root, "flags", H5T_NATIVE_UINT32, box.flags.size(), box.flags.data(), where);
  if (flags_checksum(box.flags) != box.flags_checksum) {
    throw Error(where + ": checksum mismatch in its flags, the file is corrupted");
  }
  return box;
}
#else
void write_checkpoint_file(const std::filesystem::path& path, const CheckpointBox&) {
  throw Error("checkpoint file '" + path.string() + "': this karman was built without HDF5 (KARMAN_ENABLE_HDF5=OFF)");
}

CheckpointBox read_checkpoint_file(const std::filesystem::path& path, bool) {
  throw Error("checkpoint file '" + path.string() + "': this karman was built without HDF5 (KARMAN_ENABLE_HDF5=OFF)");
}
#endif

}  // namespace karman::io
