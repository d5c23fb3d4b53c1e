// Output directory checks and the atomic text outputs (CSV, JSON): README "Quick start", the outputs:
// bad input fails with the value named, files appear whole (temporary file, then rename).
#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/csv.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>

#include "../common/expect_error.hpp"
#include "io_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace fs = std::filesystem;
using karman::io_test::list_directory;
using karman::io_test::make_scratch_directory;
using karman::io_test::read_text;
using karman::test::error_of;

namespace {}  // namespace

TEST(OutputDirectory, CreatesParentsAndLeavesNoProbe) {
  const fs::path scratch = make_scratch_directory("outdir");
  const fs::path target = scratch / "a" / "b" / "run";
  karman::io::prepare_output_directory(target);
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_TRUE(list_directory(target).empty());
  // An existing, writable directory is fine too: restarts write into it again.
  karman::io::prepare_output_directory(target);
  EXPECT_TRUE(list_directory(target).empty());
  fs::remove_all(scratch);
}

TEST(OutputDirectory, RefusesPathUnderRegularFile) {
  const fs::path scratch = make_scratch_directory("outdir");
  karman::io::write_file_atomically(scratch / "plain", "not a directory\n");
  const fs::path target = scratch / "plain" / "run";
  const std::string message = error_of([&] { karman::io::prepare_output_directory(target); });
  EXPECT_NE(message.find(target.string()), std::string::npos) << message;
  EXPECT_NE(message.find(std::strerror(ENOTDIR)), std::string::npos) << message;
  // The regular file itself is no directory either.
  const std::string on_file = error_of([&] { karman::io::prepare_output_directory(scratch / "plain"); });
  EXPECT_NE(on_file.find((scratch / "plain").string()), std::string::npos) << on_file;
  EXPECT_EQ(list_directory(scratch), (std::set<std::string>{"plain"}));
  fs::remove_all(scratch);
}

TEST(OutputDirectory, RefusesEmptyPath) { EXPECT_THROW(karman::io::prepare_output_directory(""), karman::Error); }

TEST(AtomicFile, ReplacesContentAndLeavesNoTemporary) {
  const fs::path scratch = make_scratch_directory("atomic");
  const fs::path path = scratch / "summary.txt";
  karman::io::write_file_atomically(path, "first version, longer than the second\n");
  karman::io::write_file_atomically(path, std::string("second\0binary", 13));
  EXPECT_EQ(read_text(path), std::string("second\0binary", 13));
  EXPECT_EQ(list_directory(scratch), (std::set<std::string>{"summary.txt"}));
  fs::remove_all(scratch);
}

TEST(AtomicFile, FailsInMissingDirectoryNamingThePath) {
  const fs::path scratch = make_scratch_directory("atomic");
  const fs::path path = scratch / "missing" / "summary.txt";
  const std::string message = error_of([&] { karman::io::write_file_atomically(path, "x"); });
  EXPECT_NE(message.find((scratch / "missing").string()), std::string::npos) << message;
  EXPECT_TRUE(list_directory(scratch).empty());
  EXPECT_THROW(karman::io::write_file_atomically(scratch / "", "x"), karman::Error);
  fs::remove_all(scratch);
}

TEST(Csv, RoundTripsEveryDoubleBitwise) {
  const fs::path scratch = make_scratch_directory("csv");
  const fs::path path = scratch / "profile.csv";
  const std::vector<double> y = {0.1, 1.0 / 3.0, -1e-300, std::numeric_limits<double>::denorm_min(), 1e308, -0.0};
  const std::vector<double> u = {3.141592653589793, std::nextafter(1.0, 2.0), 2.5e-17, -123456789.123456789, 0.0, 7.0};
  karman::io::write_csv(path, {"y", "u_x"}, {y, u});

  const std::string text = read_text(path);
  ASSERT_EQ(text.substr(0, 6), "y,u_x\n");
  EXPECT_EQ(list_directory(scratch), (std::set<std::string>{"profile.csv"}));
  const char* cursor = text.c_str() + 6;
  for (std::size_t row = 0; row < y.size(); ++row) {
    char* end = nullptr;
    const double y_read = std::strtod(cursor, &end);
    ASSERT_EQ(*end, ',') << "row " << row;
    const double u_read = std::strtod(end + 1, &end);
    ASSERT_EQ(*end, '\n') << "row " << row;
    cursor = end + 1;
    EXPECT_EQ(std::memcmp(&y_read, &y[row], sizeof(double)), 0) << "row " << row << ": " << y_read;
    EXPECT_EQ(std::memcmp(&u_read, &u[row], sizeof(double)), 0) << "row " << row << ": " << u_read;
  }
  EXPECT_EQ(*cursor, '\0');
  fs::remove_all(scratch);
}

TEST(Csv, RejectsMismatchedColumnsAndBadNames) {
  const fs::path scratch = make_scratch_directory("csv");
  const fs::path path = scratch / "bad.csv";
  const std::string lengths = error_of([&] { karman::io::write_csv(path, {"a", "b"}, {{1.0, 2.0}, {1.0}}); });
  EXPECT_NE(lengths.find("'b' has 1 values"), std::string::npos) << lengths;
  const std::string counts = error_of([&] { karman::io::write_csv(path, {"a"}, {{1.0}, {2.0}}); });
  EXPECT_NE(counts.find("1 column names for 2 columns"), std::string::npos) << counts;
  const std::string comma = error_of([&] { karman::io::write_csv(path, {"a,b"}, {{1.0}}); });
  EXPECT_NE(comma.find("'a,b'"), std::string::npos) << comma;
  EXPECT_THROW(karman::io::write_csv(path, {}, {}), karman::Error);
  EXPECT_TRUE(list_directory(scratch).empty());
  fs::remove_all(scratch);
}

TEST(Json, WritesPrettyAndReadsBack) {
  const fs::path scratch = make_scratch_directory("json");
  const fs::path path = scratch / "summary.json";
  const nlohmann::json document = {{"case", "cavity"}, {"mlups", 123.5}, {"extents", {64, 64, 1}}};
  karman::io::write_json(path, document);
  const std::string text = read_text(path);
  EXPECT_EQ(text.substr(0, 4), "{\n  ");
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(nlohmann::json::parse(text), document);
  EXPECT_EQ(list_directory(scratch), (std::set<std::string>{"summary.json"}));
  fs::remove_all(scratch);
}

TEST(Json, RefusesInvalidUtf8WithoutWriting) {
  const fs::path scratch = make_scratch_directory("json");
  const nlohmann::json document = {{"name", std::string("\xff\xfe")}};
  const std::string message = error_of([&] { karman::io::write_json(scratch / "bad.json", document); });
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
  EXPECT_TRUE(list_directory(scratch).empty());
  fs::remove_all(scratch);
}
