#include "hdf5_handle.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace karman::detail {
namespace {
/// The innermost FailuresEndEveryRank of this thread, or none.
thread_local FailuresEndEveryRank* current_policy = nullptr;
/// The file this thread writes, or none.
thread_local FileHandle* current_file = nullptr;
}  // namespace

FailuresEndEveryRank::FailuresEndEveryRank(std::function<void(const std::string&)> end)
    : m_end(std::move(end)), m_outer(current_policy) {
  current_policy = this;
}

FailuresEndEveryRank::~FailuresEndEveryRank() { current_policy = m_outer; }

void fail_hdf5(const std::string& failure) {
  if (current_file != nullptr) current_file->leave_disk();
  if (current_policy != nullptr) current_policy->m_end(failure);
  throw Error(failure);
}

FileHandle::FileHandle(hid_t id, hid_t file_access, const std::string& failure)
    : m_id(id), m_posix(file_access == H5P_DEFAULT || H5Pget_driver(file_access) == H5FD_SEC2), m_outer(current_file) {
  if (id < 0) fail_hdf5(failure);
  current_file = this;
}

FileHandle::~FileHandle() {
  if (m_id >= 0) H5Fclose(m_id);
  current_file = m_outer;
}

void FileHandle::close(const std::string& failure) {
  if (H5Fflush(m_id, H5F_SCOPE_LOCAL) < 0) fail_hdf5(failure);
  const herr_t status = H5Fclose(m_id);
  m_id = -1;
  if (status < 0) fail_hdf5(failure);
}

void FileHandle::leave_disk() {
  if (m_left_disk || m_id < 0) return;
  m_left_disk = true;
  void* handle = nullptr;
  if (!m_posix || H5Fget_vfd_handle(m_id, H5P_DEFAULT, &handle) < 0 || handle == nullptr) return;
  // The descriptor number HDF5 holds now names a memory file: later flushes land there.
  const int memory = ::memfd_create("karman-failed-hdf5-file", MFD_CLOEXEC);
  if (memory < 0) return;
  ::dup2(memory, *static_cast<int*>(handle));
  ::close(memory);
}

}  // namespace karman::detail
