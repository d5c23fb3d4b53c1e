#pragma once
/// \file atomic_file.hpp
/// Whole-file writes that readers see either completely or not at all (README "Long runs":
/// temporary file, then rename).

#include <filesystem>
#include <string_view>

namespace karman::io {

/// Writes `content` to a new temporary file beside `path`, flushes it to disk, then renames it
/// over `path`; refuses (karman::Error) a symbolic link at `path` and never writes through one.
/// On failure removes the temporary file and throws karman::Error naming the path
/// and the reason. A reader never sees a partial `path`.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Creates a new empty file beside `path` under an unpredictable name, exclusively and never
/// through a link, and returns its name: for a helper program that writes a file only by name
/// (gnuplot's png). Publish it with replace_file(). Refuses a symbolic link at `path`.
std::filesystem::path create_file_beside(const std::filesystem::path& path);

/// Renames `temporary` (from create_file_beside) over `path`, refusing a symbolic link at `path`;
/// on failure removes `temporary` and throws karman::Error.
void replace_file(const std::filesystem::path& temporary, const std::filesystem::path& path);

}  // namespace karman::io
