#pragma once
// Helpers shared by the karman_io tests: scratch directories, file listings, test values.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace karman::io_test {

/// A fresh empty directory under the system's temporary directory.
inline std::filesystem::path make_scratch_directory(const std::string& name) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("karman_" + name + "_XXXXXX")).string();
  const char* made = ::mkdtemp(pattern.data());
  if (made == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  return made == nullptr ? std::filesystem::path() : std::filesystem::path(made);
}

/// Names of the entries of `directory`.
inline std::set<std::string> list_directory(const std::filesystem::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) names.insert(entry.path().filename());
  return names;
}

/// Whole file as text.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `value` printed as %.17g, as the writers print numbers.
inline std::string g17(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Occurrences of `needle` in `text`.
inline int count_of(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

/// A value unique to (dataset, global cell, step): a misplaced or stale value cannot match.
inline double test_value(int dataset, int step, long long global_cell) {
  return 1.0e6 * dataset + global_cell + 0.25 * step;
}

}  // namespace karman::io_test
