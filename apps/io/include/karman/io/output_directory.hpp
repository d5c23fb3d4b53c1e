#pragma once
/// \file output_directory.hpp
/// The directory a run writes into, checked before the first time step so that a bad path
/// fails at once and leaves nothing behind.

#include <filesystem>

namespace karman::io {

/// Creates `directory` (and its parents) and proves it writable by creating and removing a probe
/// file; throws karman::Error naming the path and the operating system's reason otherwise.
void prepare_output_directory(const std::filesystem::path& directory);

}  // namespace karman::io
