// `karman bench` as the command line registers it (apps/karman/bench_command.cpp): a tiny sweep
// parsed from its options runs and writes one JSON record per variant in sweep order; options
// out of their lists and odd step counts are refused. Never a timing assertion (STYLE.md "Tests").
#include "bench_command.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/perf/bench.hpp>
#include <karman/perf/sparse_bench.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace {

/// Runs `karman bench <args> --json <file>` as the command line registers it and returns the
/// records it wrote; a missing file fails the calling test (null returned).
nlohmann::json run_bench(const std::string& args, const std::string& file) {
  const std::string path = ::testing::TempDir() + file;
  std::remove(path.c_str());
  CLI::App app{"test"};
  karman::app::add_bench_command(app);
  app.parse(args + " --json " + path, false);
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no JSON written to " << path;
  return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

TEST(BenchCommand, RunsTheSweepItParsesAndWritesJson) {
  // A variant every build of the tests holds (make sanitize's too); others pass over it.
  if (!karman::lbm::is_compiled("d2q9", "double", "soa")) GTEST_SKIP() << "d2q9/double/soa not compiled";
  const nlohmann::json records = run_bench(
      "bench --lattice d2q9 --precision double --layout soa --pattern ab,aa --n 6 --steps 2 --warmup 0 "
      "--repeat 1 --copy-mib 2",
      "karman_bench_command.json");
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

// The porosity sweep (--grid sparse): every grid runs the same sample, so they update the same
// fluid voxels; both groupings store the same blocks; the obstacle-free box has no boundary block
// and is the reference of vs_dense_box; the records say what ran.
TEST(BenchCommand, SparseSweepComparesGridsOnTheSameSamples) {
  if (!karman::lbm::is_sparse_compiled("d3q19", "float", "csoa") || !karman::lbm::is_compiled("d3q19", "float", "csoa"))
    GTEST_SKIP() << "d3q19/float/csoa not compiled for both grids";
  const nlohmann::json records =
      run_bench("bench --grid sparse --n 16 --steps 2 --warmup 0 --repeat 1 --porosity 0.5,1 --sample random,array",
                "karman_bench_sparse.json");
  ASSERT_TRUE(records.is_array());
  // The box once, then the random pack and the array, each on three grids.
  ASSERT_EQ(records.size(), 9u) << records.dump();
  const char* const samples[3] = {"box", "random", "array"};
  const char* const grids[3] = {"dense", "memory", "bitmask"};
  for (std::size_t s = 0; s < 3; ++s) {
    const nlohmann::json& dense = records[3 * s];
    for (std::size_t g = 0; g < 3; ++g) {
      const nlohmann::json& r = records[3 * s + g];
      EXPECT_EQ(r.value("sample", ""), samples[s]) << r.dump();
      EXPECT_EQ(r.value("grid", ""), grids[g]) << r.dump();
      EXPECT_EQ(r.value("variant", ""), "d3q19/float/csoa/bgk/ab") << r.dump();
      EXPECT_EQ(r.value("fluid_voxels", 0), dense.value("fluid_voxels", -1)) << r.dump();
      EXPECT_GT(r.value("mlups", 0.0), 0.0) << r.dump();
      EXPECT_GT(r.value("bytes_per_fluid_voxel", 0.0), 0.0) << r.dump();
      EXPECT_GT(r.value("vs_dense_box", 0.0), 0.0) << r.dump();
    }
    EXPECT_EQ(dense.value("vs_dense", 0.0), 1.0) << dense.dump();
    EXPECT_EQ(records[3 * s + 1].value("blocks", 0), records[3 * s + 2].value("blocks", -1));
    EXPECT_EQ(records[3 * s + 1].value("boundary_blocks", 0), records[3 * s + 2].value("boundary_blocks", -1));
  }
  EXPECT_EQ(records[0].value("fluid_voxels", 0), 16 * 16 * 16);
  EXPECT_EQ(records[0].value("vs_dense_box", 0.0), 1.0);
  EXPECT_EQ(records[1].value("boundary_blocks", -1), 0) << records[1].dump();
  EXPECT_EQ(records[1].value("blocks", 0), 64) << records[1].dump();
  EXPECT_LT(records[3].value("fluid_voxels", 0), 16 * 16 * 16);
  // Every sample's sector fill is its image's (sector_fill, tested below), 1 for the box.
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(records[3 * s].value("sector_fill", 0.0), records[3 * s + 1].value("sector_fill", -1.0));
    EXPECT_GT(records[3 * s].value("sector_fill", 0.0), 0.0) << records[3 * s].dump();
    EXPECT_LE(records[3 * s].value("sector_fill", 2.0), 1.0) << records[3 * s].dump();
  }
  EXPECT_EQ(records[0].value("sector_fill", 0.0), 1.0);
}

// sector_fill: the fluid voxels over the voxels of the 32-byte sectors that hold one. An 8^3
// image of 4^3 blocks: a sector of FP32 words is two x-rows of a block (8 voxels), of FP64 one
// row (4 voxels).
TEST(BenchCommand, SectorFillCountsTheSectorsHoldingFluid) {
  karman::geometry::VoxelImage image;
  image.extents = {8, 8, 8};
  image.solid.assign(512, 1);
  const auto fluid = [&](int x, int y, int z) { image.solid[std::size_t(x + 8 * (y + 8 * z))] = 0; };
  fluid(1, 0, 0);  // one voxel: its sector is 1/8 fluid in FP32, 1/4 in FP64
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 4), 1.0 / 8);
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 8), 1.0 / 4);
  fluid(3, 1, 0);  // the same FP32 sector (rows y = 0 and 1 of the block), another FP64 one
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 4), 2.0 / 8);
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 8), 2.0 / 8);
  fluid(4, 2, 4);  // a sector of another block
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 4), 3.0 / 16);
  image.solid.assign(512, 0);
  EXPECT_DOUBLE_EQ(karman::perf::sector_fill<4>(image, 4), 1.0);
}

// --split-collision (perf/src/split_collision.cpp): the two-launch central-moment update gives the
// fused update's populations bit for bit (one rounding of each operation either way; CPU builds
// do not contract), and its record counts the 30 values the split writes and reads back.
TEST(BenchCommand, SplitCollisionEqualsTheFusedUpdate) {
  const nlohmann::json r = run_bench("bench --split-collision --n 8 --steps 2 --warmup 0 --repeat 1 --copy-mib 2",
                                     "karman_bench_split.json");
  ASSERT_TRUE(r.is_object()) << r.dump();
  EXPECT_EQ(r.value("n", 0), 8);
  EXPECT_EQ(r.value("collision", ""), "cm");
  EXPECT_TRUE(r.value("identical", false)) << r.dump();
  EXPECT_EQ(r.value("max_abs_difference", 1.0), 0.0) << r.dump();
  EXPECT_GT(r.value("check_steps", 0), 0);
  EXPECT_LT(r.value("mass_drift", 1.0), 1e-6) << r.dump();
  EXPECT_EQ(r["fused"].value("bytes_per_update", 0), 2 * 27 * 4);
  EXPECT_EQ(r["split"].value("bytes_per_update", 0), 2 * 27 * 4 + 2 * 30 * 4);
  EXPECT_GT(r["fused"].value("mlups", 0.0), 0.0);
  EXPECT_GT(r["split"].value("mlups", 0.0), 0.0);
  EXPECT_GT(r.value("copy_bandwidth_gbps", 0.0), 0.0);
}

TEST(BenchCommand, RefusesBadOptions) {
  CLI::App bad{"test"};
  karman::app::add_bench_command(bad);
  EXPECT_THROW(bad.parse("bench --lattice d3q15", false), CLI::ValidationError);
  CLI::App odd{"test"};
  karman::app::add_bench_command(odd);
  EXPECT_THROW(odd.parse("bench --lattice d2q9 --n 6 --steps 3", false), karman::Error);
  for (const char* line : {"bench --grid sparse --porosity 0", "bench --grid sparse --porosity 1.5",
                           "bench --grid sparse --n 18", "bench --grid sparse --lattice d2q9",
                           "bench --grid sparse --lattice d3q19,d3q27", "bench --grid sparse --n 16 --period 6"}) {
    CLI::App sparse{"test"};
    karman::app::add_bench_command(sparse);
    EXPECT_THROW(sparse.parse(line, false), karman::Error) << line;
  }
  for (const char* line : {"bench --split-collision --lattice d3q19", "bench --split-collision --collision bgk",
                           "bench --split-collision --n 600", "bench --split-collision --copy-bandwidth-only",
                           "bench --split-collision --halo-pack"}) {
    CLI::App split{"test"};
    karman::app::add_bench_command(split);
    EXPECT_THROW(split.parse(line, false), karman::Error) << line;
  }
  CLI::App grid{"test"};
  karman::app::add_bench_command(grid);
  EXPECT_THROW(grid.parse("bench --grid mesh", false), CLI::ValidationError);
}

}  // namespace

namespace {

// A sweep passes over the variants this build does not hold (a CPU build's product holds FP16 in
// SoA and CSoA only) and runs the rest; a sweep of none it holds is refused, naming them.
TEST(BenchCommand, PassesOverVariantsNotCompiled) {
  karman::perf::BenchOptions o;
  o.lattices = {"d2q9"};
  o.precisions = {"fp16s", "double"};
  o.layouts = {"aos", "soa"};
  std::vector<std::string> expected;
  for (const auto& p : o.precisions)
    for (const auto& l : o.layouts)
      if (!karman::lbm::is_compiled("d2q9", p, l)) expected.push_back("d2q9/" + p + "/" + l);
  if (expected.size() == 4) {
    EXPECT_THROW(karman::perf::uncompiled_variants(o), karman::Error);
    return;
  }
  EXPECT_EQ(karman::perf::uncompiled_variants(o), expected);
  const nlohmann::json records = run_bench(
      "bench --lattice d2q9 --precision fp16s,double --layout aos,soa --pattern ab --n 8 --steps 2 --warmup 1 "
      "--repeat 1",
      "uncompiled.json");
  EXPECT_EQ(records.size(), 4 - expected.size());
  for (const auto& r : records) {
    const std::string name = "d2q9/" + r.value("precision", std::string()) + "/" + r.value("layout", std::string());
    EXPECT_TRUE(karman::lbm::is_compiled("d2q9", r.value("precision", std::string()), r.value("layout", std::string())))
        << name << " ran";
  }
}

}  // namespace
