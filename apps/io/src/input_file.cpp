#include <karman/core/error.hpp>
#include <karman/io/input_file.hpp>

#include "unique_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace karman::io {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string limit_text(std::uintmax_t limit) { return "the limit is " + std::to_string(limit) + " bytes"; }

}  // namespace

std::string file_kind(const std::filesystem::path& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 ? kind_of(status.st_mode) : "missing";
}

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t limit, const std::string& what) {
  const std::string where = what + " '" + path.string() + "'";
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    throw Error(where + (errno == ENOENT ? ": no such file" : ": cannot open it: " + detail::os_reason(errno)));
  }
  struct stat status {};
  std::string refusal;
  if (::fstat(fd, &status) != 0) {
    refusal = "cannot inspect it: " + detail::os_reason(errno);
  } else if (!S_ISREG(status.st_mode)) {
    refusal = "is " + kind_of(status.st_mode) + ", not a regular file; give a regular file (" + limit_text(limit) + ")";
  } else if (std::uintmax_t(status.st_size) > limit) {
    refusal = "is " + std::to_string(status.st_size) + " bytes, more than Karman reads; " + limit_text(limit);
  }
  std::string text;
  char buffer[65536];
  while (refusal.empty()) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) refusal = "cannot read it: " + detail::os_reason(errno);
    if (got <= 0) break;
    text.append(buffer, std::size_t(got));
    if (text.size() > limit) refusal = "grew past the size Karman reads while being read; " + limit_text(limit);
  }
  ::close(fd);
  if (!refusal.empty()) throw Error(where + ": " + refusal);
  return text;
}

}  // namespace karman::io
