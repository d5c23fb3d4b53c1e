// `karman bench` on tiny boxes: every variant of a sweep yields a complete record with positive
// figures, the JSON parses back with the issue's fields, the table lines up, bad options are
// refused. Never a timing assertion (STYLE.md "Tests"). The subcommand that parses the options is
// tested in tests/app/bench_command_test.cpp.
#include <karman/core/error.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/perf/bench.hpp>
#include <karman/perf/bench_report.hpp>
#include <karman/perf/copy_bandwidth.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

namespace {

using namespace karman::perf;

int populations(const std::string& lattice) { return lattice == "d2q9" ? 9 : (lattice == "d3q19" ? 19 : 27); }

BenchOptions tiny() {
  BenchOptions o;
  o.lattices = {"d2q9", "d3q19"};
  o.precisions = {"float", "double"};
  o.layouts = {"soa", "disaggregated"};
  o.patterns = {"ab", "aa"};
  o.collisions = {"bgk"};
  o.n = 8;
  o.steps = 2;
  o.warmup = 2;
  o.repeat = 1;
  o.copy_bytes = std::size_t(2) << 20;
  return o;
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

/// The fields docs/performance.md documents for every record, with the JSON type each must have.
const std::vector<std::pair<std::string, nlohmann::json::value_t>> required_fields = {
    {"lattice", nlohmann::json::value_t::string},
    {"precision", nlohmann::json::value_t::string},
    {"layout", nlohmann::json::value_t::string},
    {"pattern", nlohmann::json::value_t::string},
    {"collision", nlohmann::json::value_t::string},
    {"n", nlohmann::json::value_t::number_unsigned},
    {"steps", nlohmann::json::value_t::number_unsigned},
    {"mlups", nlohmann::json::value_t::number_float},
    {"bytes_per_update", nlohmann::json::value_t::number_unsigned},
    {"bandwidth_gbps", nlohmann::json::value_t::number_float},
    {"copy_bandwidth_gbps", nlohmann::json::value_t::number_float},
    {"percent_of_copy", nlohmann::json::value_t::number_float},
    {"bytes_per_cell", nlohmann::json::value_t::number_float},
    {"backend", nlohmann::json::value_t::string},
    {"device", nlohmann::json::value_t::string},
};

void expect_complete_json(const nlohmann::json& all, std::size_t count) {
  ASSERT_TRUE(all.is_array());
  ASSERT_EQ(all.size(), count);
  for (const auto& r : all) {
    for (const auto& [name, type] : required_fields) {
      ASSERT_TRUE(r.contains(name)) << "missing field " << name << " in " << r.dump();
      // Integers that happen to be written as signed still count as integers.
      const bool integer_ok = type == nlohmann::json::value_t::number_unsigned && r[name].is_number_integer();
      EXPECT_TRUE(r[name].type() == type || integer_ok) << name << " has the wrong type in " << r.dump();
      if (r[name].is_number()) {
        EXPECT_GT(r[name].get<double>(), 0.0) << name << " in " << r.dump();
      } else {
        EXPECT_FALSE(r[name].get<std::string>().empty()) << name;
      }
    }
  }
}

TEST(CopyBandwidth, EveryKernelMeasuredAndTheBestIsTheReference) {
  const CopyBandwidth c = measure_copy_bandwidth(std::size_t(4) << 20, 2);
  ASSERT_GE(c.kernels.size(), 2u);
  double best = 0;
  for (const auto& k : c.kernels) {
    EXPECT_GT(k.gbps, 0.0) << k.name;
    best = std::max(best, k.gbps);
  }
  EXPECT_EQ(c.best_gbps, best);
  EXPECT_FALSE(c.best_kernel.empty());
  EXPECT_GT(c.deep_copy_gbps, 0.0);
  EXPECT_GE(c.buffer_bytes, (std::size_t(4) << 20) - 128);
  EXPECT_NE(copy_summary(c).find("<- reference"), std::string::npos);
  EXPECT_THROW(measure_copy_bandwidth(1000, 1), karman::Error);
}

TEST(RunBench, OneCompleteRecordPerVariantInSweepOrder) {
  const BenchOptions o = tiny();
  const auto start = std::chrono::steady_clock::now();
  const auto records = run_bench(o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(records.size(), 16u);
  std::size_t k = 0;
  for (const auto& lattice : o.lattices)
    for (const auto& precision : o.precisions)
      for (const auto& layout : o.layouts)
        for (const auto& pattern : o.patterns) {
          const BenchRecord& r = records[k++];
          const std::string what = lattice + "/" + precision + "/" + layout + "/" + pattern;
          EXPECT_EQ(r.lattice, lattice);
          EXPECT_EQ(r.precision, precision);
          EXPECT_EQ(r.layout, layout);
          EXPECT_EQ(r.pattern, pattern);
          EXPECT_EQ(r.collision, "bgk");
          EXPECT_EQ(r.n, 8);
          EXPECT_EQ(r.voxels, lattice == "d2q9" ? 64 : 512) << what;
          EXPECT_EQ(r.steps, 2);
          const std::size_t t = precision == "float" ? 4 : 8;
          const std::size_t q = populations(lattice);
          // A periodic all-fluid box needs no flag word: populations read and written only.
          EXPECT_EQ(r.bytes_per_update, 2 * q * t) << what;
          // AA keeps one lattice, AB two (docs/architecture.md, "The LBM"); SoA pads each component to
          // its padded stride, over the local box of the owned planes and two halo planes, and
          // Disaggregated its interior group's (the owned planes but the two shared ones).
          const karman::index_t plane = karman::index_t(r.voxels) / r.n;
          const karman::index_t local = plane * (r.n + 2), interior = plane * (r.n - 2);
          const double padding = layout == "soa" ? double(karman::SoA::padded_stride(local)) / double(local)
                                 : layout == "disaggregated"
                                     ? double(local - interior + karman::SoA::padded_stride(interior)) / double(local)
                                     : 1.0;
          EXPECT_DOUBLE_EQ(r.bytes_per_cell, double((pattern == "ab" ? 2 : 1) * q * t) * padding) << what;
          // Every timed sample lies inside the wall time of the whole sweep, so each rate the bench
          // reports is at least the sample's work over that wall time: a unit slip (ms for s, MB
          // for GB, values for bytes) or a lost step shows up here.
          const double sample_updates = double(r.voxels) * double(r.steps);
          EXPECT_GE(r.mlups * 1e6, sample_updates / wall) << what;
          EXPECT_GE(r.mlups_max * 1e6, sample_updates / wall) << what;
          EXPECT_GE(r.bandwidth_gbps * 1e9, sample_updates * double(r.bytes_per_update) / wall) << what;
          EXPECT_GT(r.copy_bandwidth_gbps, 0.0);
          // The kernel computed physics: mass is conserved to rounding.
          EXPECT_LT(r.mass_drift, precision == "float" ? 1e-5 : 1e-12) << what;
          EXPECT_FALSE(r.backend.empty());
          EXPECT_FALSE(r.device.empty());
          EXPECT_FALSE(r.kokkos_version.empty());
          EXPECT_FALSE(r.commit.empty());
        }
}

TEST(BenchReport, JsonParsesBackWithTheIssueFields) {
  BenchOptions o = tiny();
  o.lattices = {"d3q27"};
  o.precisions = {"float"};
  o.layouts = {"aos", "csoa"};
  o.collisions = {"bgk", "trt"};
  const auto records = run_bench(o);
  ASSERT_EQ(records.size(), 8u);
  const auto parsed = nlohmann::json::parse(to_json(records));
  expect_complete_json(parsed, records.size());
  EXPECT_EQ(parsed[3]["collision"], "trt");
  EXPECT_EQ(parsed[0]["mlups"].get<double>(), records[0].mlups);

  const std::string path = temp_path("karman_bench_smoke.json");
  write_json(path, records);
  std::ifstream in(path);
  expect_complete_json(nlohmann::json::parse(in), records.size());
  EXPECT_THROW(write_json("/nonexistent-dir/x.json", records), karman::Error);
}

// A sweep skips the lattices a collision is not defined for (CM: D2Q9 and D3Q27, not D3Q19)
// and refuses a collision that none of its lattices accepts.
TEST(BenchSweep, CollisionsRunOnlyOnTheirLattices) {
  BenchOptions o = tiny();
  o.precisions = {"float"};
  o.layouts = {"soa"};
  o.patterns = {"ab"};
  o.collisions = {"bgk", "cm"};
  const auto records = run_bench(o);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].lattice + "/" + records[0].collision, "d2q9/bgk");
  EXPECT_EQ(records[1].lattice + "/" + records[1].collision, "d2q9/cm");
  EXPECT_EQ(records[2].lattice + "/" + records[2].collision, "d3q19/bgk");
  o.lattices = {"d3q19"};
  o.collisions = {"cm"};
  EXPECT_THROW(run_bench(o), karman::Error);
}

// Case ib: the periodic box with spheres (circles in 2D) of immersed-boundary markers, run for AB
// with BGK or TRT only, one record per marker block; a sweep without such a variant is refused.
TEST(BenchSweep, ImmersedSpheresCarryTheirMarkers) {
  BenchOptions o = tiny();
  o.cases = {"box", "ib"};
  o.precisions = {"double"};
  o.layouts = {"soa"};
  o.n = 24;
  o.markers = 100;
  o.marker_blocks = {0, 4};
  const auto records = run_bench(o);
  ASSERT_EQ(records.size(), 8u);  // box: 2 lattices x AB, AA; ib: 2 lattices x AB x 2 blocks
  for (std::size_t k = 4; k < 8; ++k) {
    const BenchRecord& r = records[k];
    EXPECT_EQ(r.case_name, "ib");
    EXPECT_EQ(r.pattern, "ab");
    EXPECT_EQ(r.marker_block, k % 2 == 0 ? 0 : 4);
    EXPECT_NEAR(double(r.markers), 100.0, 5.0) << r.lattice;
    EXPECT_GE(r.sphere_radius, 2.0);
    EXPECT_GT(r.mlups, 0.0);
    EXPECT_LT(r.mass_drift, 1e-12) << r.lattice;  // Guo forcing moves momentum, not mass
  }
  EXPECT_EQ(records[4].spheres, 4);  // D2Q9: 2 x 2 circles of 25 markers
  EXPECT_EQ(records[6].spheres, 1);  // D3Q19: one sphere of 100
  const auto parsed = nlohmann::json::parse(to_json(records));
  EXPECT_EQ(parsed[6]["markers"].get<std::int64_t>(), records[6].markers);
  EXPECT_FALSE(parsed[0].contains("markers"));
  o.patterns = {"aa"};
  EXPECT_THROW(run_bench(o), karman::Error);
  o.patterns = {"ab"};
  o.markers = 1000000;
  try {
    validate(o);
    ADD_FAILURE() << "a million markers accepted on a 24^2 square";
  } catch (const karman::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--markers 1000000"), std::string::npos) << e.what();
  }
}

// The spheres of case ib hold the markers asked for, 2 voxels clear of their cells' sides.
TEST(BenchSweep, SphereArrayHoldsTheMarkers) {
  for (const auto& [n, dimension, markers] :
       {std::tuple{256, 3, std::int64_t(1000000)}, std::tuple{256, 3, std::int64_t(10000)},
        std::tuple{4096, 2, std::int64_t(1000000)}, std::tuple{64, 3, std::int64_t(5000)}}) {
    const SphereArray a = sphere_array(n, dimension, markers);
    const double spheres = std::pow(a.per_axis, dimension);
    EXPECT_NEAR(spheres * a.markers_per_sphere, double(markers), 0.5 * spheres) << n << " " << markers;
    EXPECT_LE(a.radius + 2.0, 0.5 * n / a.per_axis + 1e-12);
    EXPECT_GE(a.radius, 2.0);
  }
  EXPECT_EQ(sphere_array(256, 3, 1000000).per_axis, 6);  // 216 spheres of radius 19.2
  EXPECT_THROW(sphere_array(256, 3, 10), karman::Error);
}

TEST(BenchReport, TableRowsLineUpWithTheHeader) {
  BenchOptions o = tiny();
  o.lattices = {"d2q9"};
  o.precisions = {"double"};
  o.layouts = {"csoa"};
  o.patterns = {"aa"};
  const auto records = run_bench(o);
  ASSERT_EQ(records.size(), 1u);
  const std::string header = table_header(), row = table_row(records[0]);
  const auto words = [](const std::string& s) {
    std::istringstream in(s);
    std::size_t n = 0;
    for (std::string w; in >> w;) ++n;
    return n;
  };
  EXPECT_EQ(words(header), words(row));
  EXPECT_EQ(header.size(), row.size()) << header << row;
  EXPECT_NE(row.find("d2q9"), std::string::npos);
  EXPECT_NE(row.find("csoa"), std::string::npos);
}

TEST(BenchOptions, BadInputRefusedWithTheValue) {
  const auto message = [](const BenchOptions& o) {
    try {
      validate(o);
    } catch (const karman::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  BenchOptions o = tiny();
  o.lattices = {"d3q15"};
  EXPECT_NE(message(o).find("d3q15"), std::string::npos);
  o = tiny();
  o.layouts.clear();
  EXPECT_NE(message(o).find("no layout"), std::string::npos);
  o = tiny();
  o.steps = 3;
  EXPECT_NE(message(o).find("steps = 3"), std::string::npos);
  o = tiny();
  o.n = 2;
  EXPECT_NE(message(o).find("n (2D edge) = 2"), std::string::npos);
  o = tiny();
  o.repeat = 0;
  EXPECT_NE(message(o).find("repeat = 0"), std::string::npos);
  EXPECT_EQ(message(tiny()), "accepted");
}

}  // namespace
