#pragma once
/// \file unique_file.hpp
/// Exclusively created files under names no other thread, process or user holds or can guess
/// (temporary files of atomic writes, writability probes), and their publication under the final
/// name. Every file Karman writes goes this way, so none is ever written through a link that
/// someone planted at a predictable name.

#include <cstdint>
#include <filesystem>
#include <string>

namespace karman::detail {

/// An open file descriptor and the path it was created under.
struct UniqueFile {
  int fd = -1;                 ///< open for writing
  std::filesystem::path path;  ///< directory / (stem + 16 random hex digits + ".tmp")
};

/// 64 bits from std::random_device: a name part another user cannot predict.
std::uint64_t random_token();

/// `directory` / (`stem` + `token` as 16 hex digits + ".tmp").
std::filesystem::path unique_name(const std::filesystem::path& directory, const std::string& stem, std::uint64_t token);

/// Creates unique_name(`directory`, `stem`, random token) with O_CREAT | O_EXCL | O_NOFOLLOW (mode
/// 0666 less the umask): never an existing file, never through a link; retries with another token
/// when the name is taken. Throws karman::Error "`where`: cannot create a file in '<directory>': <reason>".
UniqueFile create_unique_file(const std::filesystem::path& directory, const std::string& stem, const char* where);

/// Creates exactly `path` as create_unique_file() does (the name a root rank drew for all ranks);
/// returns the open descriptor or -1 with errno set.
int create_exclusively(const std::filesystem::path& path);

/// Throws karman::Error "`where`: '<path>' is a symbolic link; Karman does not write through links"
/// when `path` is one: a link where an output file goes may point at anybody's file.
void refuse_link(const std::filesystem::path& path, const std::string& where);

/// Renames `temporary` over `path` (same directory) after refuse_link(`path`), then lists `path`
/// with record_output(); on failure removes `temporary` and throws karman::Error naming both and
/// the reason.
void publish_file(const std::filesystem::path& temporary, const std::filesystem::path& path, const std::string& where);

/// Lists `path` in the manifest of the directory record_outputs_in() named, when it lies below
/// it (output_directory.cpp); publish_file() calls it for every file it renames into place.
void record_output(const std::filesystem::path& path);

/// The operating system's words for `error_number` (strerror).
std::string os_reason(int error_number);

}  // namespace karman::detail
