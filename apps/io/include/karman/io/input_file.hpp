#pragma once
/// \file input_file.hpp
/// Input files read whole, with their kind and size checked first: a configuration named
/// /dev/zero, a FIFO or a huge file is refused with a message instead of read without end.

#include <cstdint>
#include <filesystem>
#include <string>

namespace karman::io {

/// What `path` is for a message: "a regular file", "a directory", "a character device", ...
/// ("missing" when stat fails).
std::string file_kind(const std::filesystem::path& path);

/// The whole of `path` (`what`: e.g. "--config"), read after checking that it is a regular file
/// of at most `limit` bytes; throws karman::Error "`what` '<path>': <kind or size>, <limit>"
/// otherwise, before reading a byte. A file that grows past `limit` while read is refused too.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t limit, const std::string& what);

}  // namespace karman::io
