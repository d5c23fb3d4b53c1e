#pragma once
/// \file file_mode.hpp
/// How the ranks of a run share the HDF5 files of one output step.

#include <string>

namespace karman::io {

/// File arrangement of one output step.
enum class FileMode {
  automatic,     ///< one shared file with parallel HDF5 or one rank, else one file per rank
  single_file,   ///< fields_<step>.h5 holding the whole box (several ranks need parallel HDF5)
  file_per_rank  ///< fields_<step>_rank<r>.h5 holding rank r's slab
};

/// The option name of a mode: "auto", "single", "per-rank".
const char* name(FileMode mode);

/// The mode called `text` (one of name()'s values); throws karman::Error listing the accepted names.
FileMode parse_file_mode(const std::string& text);

}  // namespace karman::io
