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
/// vortex.json), sorted; empty when the directory is absent or holds none of them.
std::vector<std::string> earlier_run_files(const std::filesystem::path& directory);

/// Removes what earlier_run_files() lists (checkpoints included), so a new run never leaves a
/// mix of two runs' files; other files stay. Throws karman::Error naming what it could not remove.
void remove_earlier_run_files(const std::filesystem::path& directory);

}  // namespace karman::io
