#include <karman/core/error.hpp>
#include <karman/io/file_mode.hpp>

namespace karman::io {

const char* name(FileMode mode) {
  switch (mode) {
    case FileMode::automatic:
      return "auto";
    case FileMode::single_file:
      return "single";
    case FileMode::file_per_rank:
      return "per-rank";
  }
  return "unknown";
}

FileMode parse_file_mode(const std::string& text) {
  for (FileMode mode : {FileMode::automatic, FileMode::single_file, FileMode::file_per_rank}) {
    if (text == name(mode)) return mode;
  }
  throw Error("karman::io: field file mode '" + text + "' unknown; accepted: auto, single, per-rank");
}

}  // namespace karman::io
