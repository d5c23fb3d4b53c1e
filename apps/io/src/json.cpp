#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/json.hpp>

namespace karman::io {

void write_json(const std::filesystem::path& path, const nlohmann::json& document) {
  std::string text;
  try {
    text = document.dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    throw Error("karman::io::write_json('" + path.string() + "'): cannot serialise the document: " + e.what());
  }
  write_file_atomically(path, text);
}

}  // namespace karman::io
