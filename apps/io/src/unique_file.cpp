#include "unique_file.hpp"

#include <karman/core/error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace karman::detail {

std::string os_reason(int error_number) { return std::strerror(error_number); }

UniqueFile create_unique_file(const std::filesystem::path& directory, const std::string& stem, const char* where) {
  static std::atomic<unsigned long> counter{0};
  const std::filesystem::path base = directory.empty() ? std::filesystem::path(".") : directory;
  // A clash needs the same stem, pid and counter in one directory: only ranks of different
  // nodes sharing a file system, and then only a few times in a row.
  const int attempts = 64;
  int error_number = EEXIST;
  for (int attempt = 0; attempt < attempts && error_number == EEXIST; ++attempt) {
    UniqueFile file;
    file.path = base / (stem + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp");
    file.fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (file.fd >= 0) return file;
    error_number = errno;
  }
  throw Error(std::string(where) + ": cannot create a file in '" + base.string() + "': " + os_reason(error_number));
}

}  // namespace karman::detail
