#pragma once
/// \file csv.hpp
/// Profiles and probes as comma-separated columns with a header line.

#include <filesystem>
#include <string>
#include <vector>

namespace karman::io {

/// Writes one header line of `column_names`, then one row per index of the equally long
/// `columns`, each value printed with %.17g so that it reads back bitwise; the file appears
/// atomically. Throws karman::Error when the counts or lengths disagree or a name holds a comma,
/// quote or line break.
void write_csv(const std::filesystem::path& path, const std::vector<std::string>& column_names,
               const std::vector<std::vector<double>>& columns);

}  // namespace karman::io
