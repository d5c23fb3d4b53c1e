// `karman bench` as the command line registers it (apps/karman/bench_command.cpp): a tiny sweep
// parsed from its options runs and writes one JSON record per variant in sweep order; options
// out of their lists and odd step counts are refused. Never a timing assertion (STYLE.md "Tests").
#include "bench_command.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/compiled_variants.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

TEST(BenchCommand, RunsTheSweepItParsesAndWritesJson) {
  // A variant every build of the tests holds (make sanitize's too); others pass over it.
  if (!karman::lbm::is_compiled("d2q9", "double", "soa")) GTEST_SKIP() << "d2q9/double/soa not compiled";
  const std::string path = ::testing::TempDir() + "karman_bench_command.json";
  std::remove(path.c_str());
  CLI::App app{"test"};
  karman::app::add_bench_command(app);
  app.parse(
      "bench --lattice d2q9 --precision double --layout soa --pattern ab,aa --n 6 --steps 2 --warmup 0 "
      "--repeat 1 --copy-mib 2 --json " +
          path,
      false);
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "no JSON written to " << path;
  const nlohmann::json records = nlohmann::json::parse(in);
  ASSERT_TRUE(records.is_array());
  ASSERT_EQ(records.size(), 2u) << records.dump();
  const char* const patterns[2] = {"ab", "aa"};
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(records[i].value("pattern", ""), patterns[i]) << records[i].dump();
    EXPECT_EQ(records[i].value("lattice", ""), "d2q9") << records[i].dump();
    EXPECT_EQ(records[i].value("precision", ""), "double") << records[i].dump();
    EXPECT_EQ(records[i].value("layout", ""), "soa") << records[i].dump();
    EXPECT_EQ(records[i].value("n", 0), 6) << records[i].dump();
    EXPECT_GT(records[i].value("mlups", 0.0), 0.0) << records[i].dump();
  }
}

TEST(BenchCommand, RefusesBadOptions) {
  CLI::App bad{"test"};
  karman::app::add_bench_command(bad);
  EXPECT_THROW(bad.parse("bench --lattice d3q15", false), CLI::ValidationError);
  CLI::App odd{"test"};
  karman::app::add_bench_command(odd);
  EXPECT_THROW(odd.parse("bench --lattice d2q9 --n 6 --steps 3", false), karman::Error);
}

}  // namespace
