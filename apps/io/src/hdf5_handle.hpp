#pragma once
/// \file hdf5_handle.hpp
/// HDF5 identifiers closed by scope, failures as karman::Error, and HDF5's own error printing
/// turned off (its stack of ~45 lines would bury the one line that says what went wrong).

#include <karman/core/error.hpp>

#include <hdf5.h>

#include <functional>
#include <string>
#include <utility>

namespace karman::detail {

/// What a failed HDF5 call does on this thread: throw karman::Error, unless a
/// FailuresEndEveryRank is in scope. Every failure below goes through it.
[[noreturn]] void fail_hdf5(const std::string& failure);

/// While one exists on this thread, a failed HDF5 call calls `end` (which must not return)
/// instead of throwing. In a file shared through MPI-IO the other ranks wait in collective calls
/// (H5Dwrite, H5Fclose) that no error of this rank reaches, and unwinding would itself call the
/// collective H5Fclose: a rank that fails there ends every rank, so that none waits forever
/// (a disk that fills during the write).
class FailuresEndEveryRank {
 public:
  explicit FailuresEndEveryRank(std::function<void(const std::string&)> end);
  ~FailuresEndEveryRank();
  FailuresEndEveryRank(const FailuresEndEveryRank&) = delete;
  FailuresEndEveryRank& operator=(const FailuresEndEveryRank&) = delete;

 private:
  std::function<void(const std::string&)> m_end;
  FailuresEndEveryRank* m_outer;
  friend void fail_hdf5(const std::string& failure);
};

/// An HDF5 identifier closed when it goes out of scope; a failed call fails at once (fail_hdf5).
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& failure) : m_id(id), m_close(close) {
    if (id < 0) fail_hdf5(failure);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (m_id >= 0) m_close(m_id);
  }
  hid_t get() const { return m_id; }
  /// Closes now and reports failure: closing a file is where HDF5 flushes it.
  void close(const std::string& failure) {
    const herr_t status = m_close(m_id);
    m_id = -1;
    if (status < 0) fail_hdf5(failure);
  }

 private:
  hid_t m_id;
  herr_t (*m_close)(hid_t);
};

/// An HDF5 file being written, closed when it goes out of scope. Once a call fails while it is
/// open (a full disk) the file no longer reaches its disk: HDF5 would flush it there as its
/// objects close, fail again, keep a half-released file and crash when the library ends
/// (H5F__close_cb at MPI_Finalize). fail_hdf5 points its POSIX descriptor at an anonymous memory
/// file instead, so that every later close succeeds (the caller removes the file itself).
class FileHandle {
 public:
  /// `id` from H5Fcreate with `file_access` (H5P_DEFAULT: the POSIX driver).
  FileHandle(hid_t id, hid_t file_access, const std::string& failure);
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  ~FileHandle();
  hid_t get() const { return m_id; }
  /// Flushes and closes; a failed flush fails (fail_hdf5) with `failure`.
  void close(const std::string& failure);

 private:
  /// Redirects the file's descriptor to memory (sec2 driver; files of other drivers, shared
  /// through MPI-IO, are left to FailuresEndEveryRank: asking an MPI-IO file for its access
  /// properties duplicates its communicator, a collective call).
  void leave_disk();
  hid_t m_id;
  bool m_posix;  ///< the sec2 driver's (a file of one process), known before anything fails
  bool m_left_disk = false;
  FileHandle* m_outer;
  friend void fail_hdf5(const std::string& failure);
};

/// Fails (fail_hdf5) when an HDF5 call returned a negative status.
inline void check(herr_t status, const std::string& failure) {
  if (status < 0) fail_hdf5(failure);
}

/// Stops HDF5 from printing its error stack; our messages say what failed and where.
inline void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace karman::detail
