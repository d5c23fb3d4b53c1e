#include <karman/core/error.hpp>
#include <karman/io/output_directory.hpp>

#include "unique_file.hpp"

#include <unistd.h>

#include <algorithm>
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

namespace {

/// Whether `name` is something a karman run writes into its output directory.
bool written_by_karman(const std::string& name) {
  static const char* exact[] = {"summary.json", "fields.xdmf", "checkpoints", "centerline_u.csv", "centerline_v.csv",
                                "profile.csv",  "vortex.json", "forces.csv",  "forces.gp",        "forces.png"};
  for (const char* e : exact) {
    if (name == e) return true;
  }
  const auto ends_with = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return (name.rfind("fields_", 0) == 0 || name.rfind(".fields_", 0) == 0) && (ends_with(".h5") || ends_with(".tmp"));
}

}  // namespace

std::vector<std::string> earlier_run_files(const std::filesystem::path& directory) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (written_by_karman(name)) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

void remove_earlier_run_files(const std::filesystem::path& directory) {
  for (const std::string& name : earlier_run_files(directory)) {
    std::error_code ec;
    std::filesystem::remove_all(directory / name, ec);
    if (ec) {
      throw Error("karman::io::remove_earlier_run_files: cannot remove '" + (directory / name).string() +
                  "': " + ec.message());
    }
  }
}

}  // namespace karman::io
