// A file whose write fails half-way (the disk fills) is released by HDF5 all the same: its
// descriptor is pointed at memory, so the close HDF5 does on the way out cannot fail again and
// leave a half-released file that crashes the library when it ends (H5F__close_cb at
// MPI_Finalize, exit 139 instead of the run's error). /dev/full stands for the full disk: every
// write to it fails with ENOSPC, and it replaces the file's descriptor after the file is created.
#include "hdf5_handle.hpp"

#include <karman/core/error.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

namespace {

using namespace karman;

/// Open HDF5 objects of every file, the files included.
long open_objects() { return long(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL)); }

/// Points the POSIX descriptor behind `file` at /dev/full: its next write fails as on a full disk.
void fill_disk_under(hid_t file) {
  void* handle = nullptr;
  ASSERT_GE(H5Fget_vfd_handle(file, H5P_DEFAULT, &handle), 0);
  const int full = ::open("/dev/full", O_RDWR | O_CLOEXEC);
  ASSERT_GE(full, 0) << "/dev/full";
  ASSERT_GE(::dup2(full, *static_cast<int*>(handle)), 0);
  ::close(full);
}

TEST(Hdf5FailedWrite, AFileWhoseWriteFailsIsReleased) {
  detail::silence_hdf5_errors();
  const auto path =
      std::filesystem::temp_directory_path() / ("karman_failed_write_" + std::to_string(::getpid()) + ".h5");
  const long before = open_objects();
  // Large enough that HDF5 writes the values through to the file at once (no sieve buffer).
  std::vector<double> values(1 << 18, 1.0);
  bool failed = false;
  try {
    detail::FileHandle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5P_DEFAULT, "create");
    const hsize_t count = values.size();
    detail::Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose, "space");
    detail::Handle dataset(
        H5Dcreate2(file.get(), "values", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
        "dataset");
    fill_disk_under(file.get());
    detail::check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "write");
    file.close("close");
  } catch (const Error& e) {
    failed = true;
    EXPECT_STREQ(e.what(), "write");
  }
  EXPECT_TRUE(failed) << "a write to a full disk succeeded";
  EXPECT_EQ(open_objects(), before) << "HDF5 still holds the failed file";
  std::filesystem::remove(path);
  // Ending the library closes what is left open: a half-released file would crash here.
  EXPECT_GE(H5close(), 0);
}

TEST(Hdf5FailedWrite, AFailedFlushAtCloseReleasesTheFile) {
  detail::silence_hdf5_errors();
  const auto path =
      std::filesystem::temp_directory_path() / ("karman_failed_close_" + std::to_string(::getpid()) + ".h5");
  const long before = open_objects();
  bool failed = false;
  try {
    detail::FileHandle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5P_DEFAULT, "create");
    const int value = 7;
    detail::Handle space(H5Screate(H5S_SCALAR), H5Sclose, "space");
    detail::Handle attribute(H5Acreate2(file.get(), "value", H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                             H5Aclose, "attribute");
    detail::check(H5Awrite(attribute.get(), H5T_NATIVE_INT, &value), "attribute write");
    // The attribute sits in HDF5's metadata cache: the disk is first touched by the flush at close.
    fill_disk_under(file.get());
    file.close("close");
  } catch (const Error& e) {
    failed = true;
    EXPECT_STREQ(e.what(), "close");
  }
  EXPECT_TRUE(failed) << "a flush to a full disk succeeded";
  EXPECT_EQ(open_objects(), before) << "HDF5 still holds the failed file";
  std::filesystem::remove(path);
  EXPECT_GE(H5close(), 0);
}

}  // namespace
