#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/csv.hpp>

#include <cstdio>

namespace karman::io {

void write_csv(const std::filesystem::path& path, const std::vector<std::string>& column_names,
               const std::vector<std::vector<double>>& columns) {
  const std::string where = "karman::io::write_csv('" + path.string() + "')";
  if (column_names.empty()) throw Error(where + ": no columns; give at least one");
  if (column_names.size() != columns.size()) {
    throw Error(where + ": " + std::to_string(column_names.size()) + " column names for " +
                std::to_string(columns.size()) + " columns; give one name per column");
  }
  std::string text;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = column_names[c];
    // Unquoted CSV: a separator, quote or line break inside a name would shift every column.
    if (name.empty() || name.find_first_of(",\"\r\n") != std::string::npos) {
      throw Error(where + ": column name '" + name + "' is empty or holds a comma, quote or line break");
    }
    if (columns[c].size() != columns[0].size()) {
      throw Error(where + ": column '" + name + "' has " + std::to_string(columns[c].size()) + " values, column '" +
                  column_names[0] + "' has " + std::to_string(columns[0].size()) +
                  "; all columns need the same length");
    }
    text += (c == 0 ? "" : ",") + name;
  }
  text += '\n';
  // %.17g prints every double so that strtod gives it back bitwise.
  char value[32];
  for (std::size_t row = 0; row < columns[0].size(); ++row) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::snprintf(value, sizeof value, c == 0 ? "%.17g" : ",%.17g", columns[c][row]);
      text += value;
    }
    text += '\n';
  }
  write_file_atomically(path, text);
}

}  // namespace karman::io
