#pragma once
/// \file unique_file.hpp
/// Exclusively created files under names no other thread or process holds (temporary files of
/// atomic writes, writability probes).

#include <filesystem>
#include <string>

namespace karman::detail {

/// An open file descriptor and the path it was created under.
struct UniqueFile {
  int fd = -1;                 ///< open for writing
  std::filesystem::path path;  ///< directory / (stem + process id + counter + ".tmp")
};

/// Creates `directory`/`stem`<pid>.<n>.tmp with O_EXCL (mode 0666 less the umask); retries with
/// the next n when another writer holds the name (ranks on different nodes may share a pid).
/// Throws karman::Error "`where`: cannot create a file in '<directory>': <reason>".
UniqueFile create_unique_file(const std::filesystem::path& directory, const std::string& stem, const char* where);

/// The operating system's words for `error_number` (strerror).
std::string os_reason(int error_number);

}  // namespace karman::detail
