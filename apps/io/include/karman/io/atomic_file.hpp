#pragma once
/// \file atomic_file.hpp
/// Whole-file writes that readers see either completely or not at all (DESIGN.md "Apps":
/// temporary file, then rename).

#include <filesystem>
#include <string_view>

namespace karman::io {

/// Writes `content` to a new temporary file beside `path`, flushes it to disk, then renames it
/// over `path`; on failure removes the temporary file and throws karman::Error naming the path
/// and the reason. A reader never sees a partial `path`.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace karman::io
