#pragma once
/// \file json.hpp
/// Run summaries and configurations as pretty-printed JSON.

#include <nlohmann/json.hpp>

#include <filesystem>

namespace karman::io {

/// Writes `document` indented by two spaces with a final newline; the file appears atomically.
/// Throws karman::Error when the document cannot be serialised (e.g. invalid UTF-8) or written.
void write_json(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace karman::io
