#include <karman/core/error.hpp>
#include <karman/io/output_directory.hpp>

#include "unique_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace karman::io {

void prepare_output_directory(const std::filesystem::path& directory) {
  const char* where = "karman::io::prepare_output_directory";
  if (directory.empty()) throw Error(std::string(where) + ": empty path; give the directory to write into");
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw Error(std::string(where) + ": cannot create directory '" + directory.string() + "': " + ec.message());
  if (!std::filesystem::is_directory(directory, ec)) {
    throw Error(std::string(where) + ": '" + directory.string() + "' exists and is not a directory");
  }
  // Creating, writing and closing a file is what output will do; permissions, a read-only mount
  // or a full disk show up here, before any step has run.
  const detail::UniqueFile probe = detail::create_unique_file(directory, ".karman_write_probe.", where);
  const char byte = '\n';
  int error_number = 0;
  if (::write(probe.fd, &byte, 1) != 1) error_number = errno;
  if (::close(probe.fd) != 0 && error_number == 0) error_number = errno;
  const bool removed = ::unlink(probe.path.c_str()) == 0;
  if (error_number == 0 && !removed) error_number = errno;
  if (error_number != 0) {
    throw Error(std::string(where) + ": directory '" + directory.string() +
                "' is not writable: " + detail::os_reason(error_number));
  }
}

}  // namespace karman::io
