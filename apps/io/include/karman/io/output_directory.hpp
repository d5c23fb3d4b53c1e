#pragma once
/// \file output_directory.hpp
/// The directory a run writes into, checked before the first time step so that a bad path
/// fails at once and leaves nothing behind.

#include <filesystem>
#include <string>
#include <vector>

namespace karman::io {

/// Creates `directory` (and its parents) and proves it writable by creating and removing a probe
/// file; throws karman::Error naming the path and the operating system's reason otherwise.
void prepare_output_directory(const std::filesystem::path& directory);

/// Names in `directory` that a karman run writes (summary.json, fields*, checkpoints, profiles,
/// vortex.json), sorted; empty when the directory is absent or holds none of them. What a new run
/// refuses to mix with; not what --overwrite removes (remove_earlier_run_files).
std::vector<std::string> earlier_run_files(const std::filesystem::path& directory);

/// The file in which runs list, one relative name a line, the files they wrote into their
/// output directory (record_outputs_in).
inline constexpr const char* manifest_name = ".karman-manifest";

/// From now on, every file this process publishes below `directory` (write_file_atomically,
/// field and checkpoint files, replace_file) is listed in `directory`/.karman-manifest, so that
/// --overwrite later removes exactly what Karman wrote. Every rank that writes calls it.
void record_outputs_in(const std::filesystem::path& directory);

/// Removes the files an earlier run listed in `directory`/.karman-manifest, then the folders
/// that left empty, then the manifest; anything else stays (a file of the same name as an
/// output but unlisted, a listed name that is now a folder, a name leading outside, files
/// beside checkpoints). Returns the names removed, sorted; throws karman::Error naming a file it
/// could not remove.
std::vector<std::string> remove_earlier_run_files(const std::filesystem::path& directory);

/// Exclusive use of an output directory for a run's life: flock(LOCK_EX | LOCK_NB) on
/// `directory`/.karman.lock. The kernel drops the lock when the holder exits or is killed, so a
/// crashed run leaves nothing stuck.
class DirectoryLock {
 public:
  /// Throws karman::Error when another process holds `directory` (or the lock file is a link).
  explicit DirectoryLock(const std::filesystem::path& directory);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int m_fd = -1;
};

}  // namespace karman::io
