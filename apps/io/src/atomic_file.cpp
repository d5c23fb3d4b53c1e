#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>

#include "unique_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace karman::io {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const char* where = "karman::io::write_file_atomically";
  if (!path.has_filename()) {
    throw Error(std::string(where) + ": '" + path.string() + "' names no file (empty or ends in a separator)");
  }
  detail::refuse_link(path, where);
  // The temporary file sits in the target's directory: rename() is atomic only within one file system.
  const detail::UniqueFile temporary =
      detail::create_unique_file(path.parent_path(), "." + path.filename().string() + ".", where);
  int error_number = 0;
  const char* next = content.data();
  std::size_t left = content.size();
  while (left > 0 && error_number == 0) {
    const ssize_t written = ::write(temporary.fd, next, left);
    if (written < 0) {
      if (errno != EINTR) error_number = errno;
    } else {
      next += written;
      left -= static_cast<std::size_t>(written);
    }
  }
  // Without fsync a crash after the rename can leave an empty file under the final name.
  if (error_number == 0 && ::fsync(temporary.fd) != 0) error_number = errno;
  if (::close(temporary.fd) != 0 && error_number == 0) error_number = errno;
  if (error_number != 0) {
    ::unlink(temporary.path.c_str());
    throw Error(std::string(where) + ": cannot write '" + path.string() + "': " + detail::os_reason(error_number));
  }
  detail::publish_file(temporary.path, path, where);
}

std::filesystem::path create_file_beside(const std::filesystem::path& path) {
  const char* where = "karman::io::create_file_beside";
  if (!path.has_filename()) throw Error(std::string(where) + ": '" + path.string() + "' names no file");
  detail::refuse_link(path, where);
  const detail::UniqueFile file =
      detail::create_unique_file(path.parent_path(), "." + path.filename().string() + ".", where);
  ::close(file.fd);
  return file.path;
}

void replace_file(const std::filesystem::path& temporary, const std::filesystem::path& path) {
  detail::publish_file(temporary, path, "karman::io::replace_file");
}

}  // namespace karman::io
