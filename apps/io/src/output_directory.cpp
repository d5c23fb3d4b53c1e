#include <karman/core/error.hpp>
#include <karman/io/output_directory.hpp>

#include "unique_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <mutex>
#include <set>
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

namespace {

/// The directory whose outputs this process lists, and the names it listed already.
struct Recording {
  std::mutex mutex;
  std::filesystem::path root;  ///< absolute, normal; empty: not recording
  std::set<std::string> listed;
};

Recording& recording() {
  static Recording r;
  return r;
}

/// Whether `name` (a line of a manifest, which anybody may have edited) names a file below
/// `directory` without leaving it: relative, no "..", and no folder on the way a link.
bool inside_without_links(const std::filesystem::path& directory, const std::string& name) {
  const std::filesystem::path relative(name);
  if (name.empty() || relative.is_absolute() || relative.has_root_name()) return false;
  std::filesystem::path folder = directory;
  for (const auto& part : relative.parent_path()) {
    folder /= part;
    struct stat status {};
    if (part == ".." || ::lstat(folder.c_str(), &status) != 0 || !S_ISDIR(status.st_mode)) return false;
  }
  return relative.filename() != "..";
}

}  // namespace

void record_outputs_in(const std::filesystem::path& directory) {
  Recording& r = recording();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.root = std::filesystem::absolute(directory).lexically_normal();
  r.listed.clear();
}

std::vector<std::string> remove_earlier_run_files(const std::filesystem::path& directory) {
  const char* where = "karman::io::remove_earlier_run_files";
  const std::filesystem::path manifest = directory / manifest_name;
  detail::refuse_link(manifest, where);
  std::ifstream in(manifest);
  std::set<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (inside_without_links(directory, line)) names.insert(line);
  }
  std::vector<std::string> removed;
  std::set<std::filesystem::path> folders;
  for (const std::string& name : names) {
    const std::filesystem::path path = directory / name;
    struct stat status {};
    // A folder under a listed name is not what the run wrote: it stays.
    if (::lstat(path.c_str(), &status) != 0 || S_ISDIR(status.st_mode)) continue;
    if (::unlink(path.c_str()) != 0) {
      throw Error(std::string(where) + ": cannot remove '" + path.string() + "': " + detail::os_reason(errno));
    }
    removed.push_back(name);
    for (auto folder = std::filesystem::path(name).parent_path(); !folder.empty(); folder = folder.parent_path()) {
      folders.insert(folder);
    }
  }
  // Deepest first ("a/b" sorts after "a"); rmdir leaves a folder that holds anything else.
  for (auto folder = folders.rbegin(); folder != folders.rend(); ++folder) ::rmdir((directory / *folder).c_str());
  ::unlink(manifest.c_str());
  return removed;
}

DirectoryLock::DirectoryLock(const std::filesystem::path& directory) {
  const std::filesystem::path path = directory / ".karman.lock";
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (m_fd < 0) {
    throw Error("--output '" + directory.string() + "': cannot open its lock file '" + path.string() +
                "': " + detail::os_reason(errno));
  }
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int error_number = errno;
    ::close(m_fd);
    if (error_number == EWOULDBLOCK) {
      throw Error("--output '" + directory.string() +
                  "' is in use by another karman run (it holds .karman.lock); wait for that run to end or give "
                  "another --output");
    }
    throw Error("--output '" + directory.string() + "': cannot lock '" + path.string() +
                "': " + detail::os_reason(error_number));
  }
}

DirectoryLock::~DirectoryLock() { ::close(m_fd); }

}  // namespace karman::io

namespace karman::detail {

void record_output(const std::filesystem::path& path) {
  io::Recording& r = io::recording();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.root.empty()) return;
  const std::filesystem::path relative = std::filesystem::absolute(path).lexically_normal().lexically_relative(r.root);
  if (relative.empty() || *relative.begin() == "..") return;
  const std::string name = relative.generic_string();
  if (!r.listed.insert(name).second) return;
  const std::filesystem::path manifest = r.root / io::manifest_name;
  // One write() of one line on an O_APPEND descriptor: ranks appending at once do not interleave.
  const int fd = ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  const std::string line = name + "\n";
  const bool written = fd >= 0 && ::write(fd, line.data(), line.size()) == ssize_t(line.size());
  const int error_number = errno;
  if (fd >= 0) ::close(fd);
  if (!written) {
    throw Error("karman::io: cannot list '" + name + "' in '" + manifest.string() + "': " + os_reason(error_number));
  }
}

}  // namespace karman::detail
