// FieldWriter on one process: every value and shape read back through the HDF5 C API, the XDMF
// file listing every step with the right files, datasets, grid and time (README "Quick start": the outputs).
#include <karman/core/error.hpp>
#include <karman/io/field_writer.hpp>

#include "field_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fs = std::filesystem;
using karman::Extents;
using karman::io::BoxGeometry;
using karman::io::FieldWriter;
using karman::io::FileMode;
using namespace karman::io_test;

namespace {

/// Writes `steps` of the whole box at times 0.125 · step, then checks every file and the XDMF file.
void write_and_check(const BoxGeometry& box, const std::vector<std::string>& names, const std::vector<int>& steps,
                     FileMode mode, const std::string& expected_origin, const std::string& expected_spacing) {
  const fs::path scratch = make_scratch_directory("fields");
  FieldWriter writer(scratch, box, names, mode);
  const int planes = box.extents.extent(writer.slab_axis());
  std::set<std::string> expected_entries = {"fields.xdmf"};
  for (int step : steps) {
    const SlabData data = make_slab(box.extents, static_cast<int>(names.size()), step, 0, planes);
    writer.write(step, 0.125 * step, data.slab);
    for (const std::string& file : writer.file_names(step)) expected_entries.insert(file);
  }
  // Nothing else: no temporary file survives a completed write.
  EXPECT_EQ(list_directory(scratch), expected_entries);

  const std::string xdmf = read_text(writer.xdmf_path());
  const std::string dims =
      std::to_string(box.extents.nz) + " " + std::to_string(box.extents.ny) + " " + std::to_string(box.extents.nx);
  EXPECT_EQ(count_of(xdmf, "<Time Value="), static_cast<int>(steps.size())) << xdmf;
  EXPECT_NE(xdmf.find("CollectionType=\"Temporal\""), std::string::npos) << xdmf;
  EXPECT_NE(xdmf.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"" + dims + "\""), std::string::npos) << xdmf;
  EXPECT_NE(xdmf.find(">" + expected_origin + "</DataItem>"), std::string::npos) << xdmf;
  EXPECT_NE(xdmf.find(">" + expected_spacing + "</DataItem>"), std::string::npos) << xdmf;
  EXPECT_EQ(count_of(xdmf, "Center=\"Node\""), static_cast<int>(steps.size() * names.size())) << xdmf;

  for (int step : steps) {
    const std::vector<std::string> files = writer.file_names(step);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_NE(xdmf.find("<Time Value=\"" + g17(0.125 * step) + "\"/>"), std::string::npos) << xdmf;
    EXPECT_NE(xdmf.find("<Information Name=\"step\" Value=\"" + std::to_string(step) + "\"/>"), std::string::npos);
    const fs::path file = scratch / files[0];
    EXPECT_EQ(read_attribute<long long>(file, "step", H5T_NATIVE_LLONG, 1), std::vector<long long>{step});
    EXPECT_EQ(read_attribute<double>(file, "time", H5T_NATIVE_DOUBLE, 1), std::vector<double>{0.125 * step});
    EXPECT_EQ(read_attribute<double>(file, "spacing", H5T_NATIVE_DOUBLE, 3),
              std::vector<double>(box.spacing.begin(), box.spacing.end()));
    for (std::size_t k = 0; k < names.size(); ++k) {
      EXPECT_NE(xdmf.find(">" + files[0] + ":/" + names[k] + "</DataItem>"), std::string::npos) << xdmf;
      const std::vector<double> whole = read_whole_box(scratch, files, names[k], box.extents);
      expect_test_values(whole, static_cast<int>(k), step, files[0] + ":/" + names[k]);
    }
  }
  fs::remove_all(scratch);
}

}  // namespace

TEST(FieldWriter, Box3DTwoStepsReadBack) {
  BoxGeometry box;
  box.extents = Extents{5, 4, 3};
  box.spacing = {0.5, 0.25, 2.0};
  box.origin = {1.0, -2.0, 3.0};
  // Node positions are cell centres, listed z, y, x: origin + spacing / 2.
  write_and_check(box, {"rho", "ux", "uy", "uz"}, {0, 7}, FileMode::automatic, "4 -1.875 1.25", "2 0.25 0.5");
}

TEST(FieldWriter, Box2DTwoStepsReadBack) {
  BoxGeometry box;
  box.extents = Extents{6, 5, 1};
  write_and_check(box, {"rho", "ux", "uy"}, {1, 2}, FileMode::automatic, "0.5 0.5 0.5", "1 1 1");
}

TEST(FieldWriter, PerRankFileOnOneRank) {
  BoxGeometry box;
  box.extents = Extents{3, 4, 2};
  write_and_check(box, {"rho"}, {3, 4}, FileMode::file_per_rank, "0.5 0.5 0.5", "1 1 1");
}

TEST(FieldWriter, FileNamesFollowTheMode) {
  BoxGeometry box;
  box.extents = Extents{3, 4, 2};
  const FieldWriter single("out", box, {"rho"});
  EXPECT_EQ(single.file_mode(), FileMode::single_file);
  EXPECT_EQ(single.file_names(42), std::vector<std::string>{"fields_000042.h5"});
  const FieldWriter per_rank("out", box, {"rho"}, FileMode::file_per_rank);
  EXPECT_EQ(per_rank.file_names(1234567), std::vector<std::string>{"fields_1234567_rank0.h5"});
  EXPECT_EQ(per_rank.xdmf_path(), fs::path("out") / "fields.xdmf");
  EXPECT_TRUE(FieldWriter::available());
}

TEST(FieldWriter, RewrittenStepReplacesItsEntry) {
  const fs::path scratch = make_scratch_directory("fields");
  BoxGeometry box;
  box.extents = Extents{2, 3, 1};
  FieldWriter writer(scratch, box, {"rho"});
  const SlabData data = make_slab(box.extents, 1, 5, 0, 3);
  writer.write(5, 1.0, data.slab);
  writer.write(5, 1.0, data.slab);
  EXPECT_EQ(count_of(read_text(writer.xdmf_path()), "<Time Value="), 1);
  fs::remove_all(scratch);
}

TEST(FieldWriter, RejectsBadConstruction) {
  BoxGeometry box;
  box.extents = Extents{4, 4, 4};
  EXPECT_THROW(FieldWriter("out", box, {}), karman::Error);
  EXPECT_THROW(FieldWriter("out", box, {"rho", "rho"}), karman::Error);
  EXPECT_THROW(FieldWriter("out", box, {"a/b"}), karman::Error);
  EXPECT_THROW(FieldWriter("out", box, {""}), karman::Error);
  EXPECT_THROW(FieldWriter("", box, {"rho"}), karman::Error);
  BoxGeometry flat = box;
  flat.spacing[1] = 0.0;
  EXPECT_THROW(FieldWriter("out", flat, {"rho"}), karman::Error);
  BoxGeometry empty = box;
  empty.extents.nx = 0;
  EXPECT_THROW(FieldWriter("out", empty, {"rho"}), karman::Error);
  BoxGeometry lost = box;
  lost.origin[2] = std::nan("");
  EXPECT_THROW(FieldWriter("out", lost, {"rho"}), karman::Error);
}

TEST(FieldWriter, RejectsBadSlabsWritingNothing) {
  const fs::path scratch = make_scratch_directory("fields");
  BoxGeometry box;
  box.extents = Extents{3, 2, 4};
  FieldWriter writer(scratch, box, {"rho", "ux"});
  const SlabData whole = make_slab(box.extents, 2, 0, 0, 4);
  EXPECT_THROW(writer.write(-1, 0.0, whole.slab), karman::Error);
  EXPECT_THROW(writer.write(0, std::nan(""), whole.slab), karman::Error);
  // One rank must cover all four planes along z.
  const SlabData part = make_slab(box.extents, 2, 0, 1, 3);
  EXPECT_THROW(writer.write(0, 0.0, part.slab), karman::Error);
  const SlabData first_planes = make_slab(box.extents, 2, 0, 0, 3);
  EXPECT_THROW(writer.write(0, 0.0, first_planes.slab), karman::Error);
  SlabData missing = make_slab(box.extents, 2, 0, 0, 4);
  missing.slab.datasets.pop_back();
  EXPECT_THROW(writer.write(0, 0.0, missing.slab), karman::Error);
  SlabData short_array = make_slab(box.extents, 2, 0, 0, 4);
  short_array.slab.datasets[1].size -= 1;
  try {
    writer.write(0, 0.0, short_array.slab);
    ADD_FAILURE() << "a short array was accepted";
  } catch (const karman::Error& e) {
    EXPECT_NE(std::string(e.what()).find("dataset 'ux' has 23 values"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(list_directory(scratch).empty());
  fs::remove_all(scratch);
}

TEST(FileMode, NamesRoundTrip) {
  for (FileMode mode : {FileMode::automatic, FileMode::single_file, FileMode::file_per_rank}) {
    EXPECT_EQ(karman::io::parse_file_mode(karman::io::name(mode)), mode);
  }
  try {
    karman::io::parse_file_mode("shared");
    ADD_FAILURE() << "'shared' was accepted";
  } catch (const karman::Error& e) {
    EXPECT_NE(std::string(e.what()).find("auto, single, per-rank"), std::string::npos) << e.what();
  }
}
