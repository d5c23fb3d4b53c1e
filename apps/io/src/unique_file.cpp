#include "unique_file.hpp"

#include <karman/core/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace karman::detail {

std::string os_reason(int error_number) { return std::strerror(error_number); }

std::uint64_t random_token() {
  // A device per call: std::random_device is not safe to share between threads, and files are
  // created far too rarely for its cost to matter.
  std::random_device device;
  return (std::uint64_t(device()) << 32) ^ std::uint64_t(device());
}

std::filesystem::path unique_name(const std::filesystem::path& directory, const std::string& stem,
                                  std::uint64_t token) {
  char digits[17];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(token));
  const std::filesystem::path base = directory.empty() ? std::filesystem::path(".") : directory;
  return base / (stem + digits + ".tmp");
}

int create_exclusively(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

UniqueFile create_unique_file(const std::filesystem::path& directory, const std::string& stem, const char* where) {
  // 64 random bits clash only with a name someone planted on purpose; a few retries get past it.
  const int attempts = 16;
  int error_number = EEXIST;
  for (int attempt = 0; attempt < attempts && error_number == EEXIST; ++attempt) {
    UniqueFile file;
    file.path = unique_name(directory, stem, random_token());
    file.fd = create_exclusively(file.path);
    if (file.fd >= 0) return file;
    error_number = errno;
  }
  const std::filesystem::path base = directory.empty() ? std::filesystem::path(".") : directory;
  throw Error(std::string(where) + ": cannot create a file in '" + base.string() + "': " + os_reason(error_number));
}

void refuse_link(const std::filesystem::path& path, const std::string& where) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) == 0 && S_ISLNK(status.st_mode)) {
    throw Error(where + ": '" + path.string() +
                "' is a symbolic link; Karman does not write through links (remove it or choose another --output)");
  }
}

void publish_file(const std::filesystem::path& temporary, const std::filesystem::path& path, const std::string& where) {
  try {
    refuse_link(path, where);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  // rename() replaces the name itself and never follows a link there, should one appear now.
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temporary.c_str());
    throw Error(where + ": cannot rename '" + temporary.string() + "' to '" + path.string() +
                "': " + os_reason(error_number));
  }
  record_output(path);
}

}  // namespace karman::detail
