// FieldWriter on 2 and 3 ranks with uneven slabs (rank r holds r + 1 planes): every rank writes its
// slab, rank 0 reads the whole box back from the shared file or the per-rank files and checks every
// value; a bad slab on one rank fails on every rank with the same CollectiveError, which names the
// lowest failing rank (docs/architecture.md, comm::Ranks: every rank agrees, nothing hangs).
#include <karman/comm/collective_error.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>
#include <karman/io/field_writer.hpp>
#include <karman/io/output_directory.hpp>

#include "field_test_support.hpp"

#include <gtest/gtest.h>

#include <mpi.h>
#include <algorithm>

namespace fs = std::filesystem;
using karman::Extents;
using karman::io::BoxGeometry;
using karman::io::FieldWriter;
using karman::io::FileMode;
using namespace karman::io_test;

namespace {

/// The ranks of MPI_COMM_WORLD, through comm::Ranks like every collective in Karman.
const karman::comm::Ranks& world() {
  static const karman::comm::Ranks ranks(MPI_COMM_WORLD);
  return ranks;
}
int world_rank() { return world().rank(); }
int world_size() { return world().size(); }

/// A scratch directory made by rank 0 and known to every rank: rank 0 makes a unique one and
/// the others learn its name as character codes through Ranks::all_gather (which takes the
/// same count from every rank: first the length, then the name, padded on the other ranks).
fs::path shared_scratch_directory(const std::string& name) {
  const std::string made = world().root() ? make_scratch_directory(name).string() : std::string();
  const long long length = world().all_gather({static_cast<long long>(made.size())}).front();
  std::vector<long long> codes(static_cast<std::size_t>(length), 0);
  std::copy(made.begin(), made.end(), codes.begin());
  const std::vector<long long> all = world().all_gather(codes);
  return std::string(all.begin(), all.begin() + length);
}

/// Rank r holds r + 1 planes: the box has 1 + 2 + ... + ranks planes along the slab axis.
int uneven_begin(int rank) { return rank * (rank + 1) / 2; }
int uneven_planes(int rank) { return rank + 1; }
int uneven_total(int ranks) { return uneven_begin(ranks); }

/// Rank 0's checks of what every rank wrote: every value, the shapes, the XDMF entries.
void check_on_rank0(const fs::path& scratch, const FieldWriter& writer, const BoxGeometry& box,
                    const std::vector<std::string>& names, const std::vector<int>& steps) {
  std::set<std::string> expected_entries = {"fields.xdmf"};
  for (int step : steps) {
    for (const std::string& file : writer.file_names(step)) expected_entries.insert(file);
  }
  EXPECT_EQ(list_directory(scratch), expected_entries);

  const std::string xdmf = read_text(writer.xdmf_path());
  EXPECT_EQ(count_of(xdmf, "<Time Value="), static_cast<int>(steps.size())) << xdmf;
  const int pieces = writer.file_mode() == FileMode::file_per_rank ? writer.ranks() : 1;
  EXPECT_EQ(count_of(xdmf, "TopologyType=\"3DCoRectMesh\""), static_cast<int>(steps.size()) * pieces) << xdmf;
  if (writer.file_mode() == FileMode::file_per_rank) {
    // Each rank's grid starts at the centre of its first plane: origin 0, spacing 1.
    for (int r = 0; r < writer.ranks(); ++r) {
      const std::string centre = g17(uneven_begin(r) + 0.5);
      const std::string origin = writer.slab_axis() == 2 ? centre + " 0.5 0.5" : "0.5 " + centre + " 0.5";
      EXPECT_NE(xdmf.find(">" + origin + "</DataItem>"), std::string::npos) << "rank " << r << "\n" << xdmf;
    }
  }
  for (int step : steps) {
    const std::vector<std::string> files = writer.file_names(step);
    for (std::size_t k = 0; k < names.size(); ++k) {
      for (const std::string& file : files) {
        EXPECT_NE(xdmf.find(">" + file + ":/" + names[k] + "</DataItem>"), std::string::npos) << xdmf;
      }
      const std::vector<double> whole = read_whole_box(scratch, files, names[k], box.extents);
      expect_test_values(whole, static_cast<int>(k), step, "step " + std::to_string(step) + " " + names[k]);
    }
  }
}

/// Every rank writes two steps of a 3D and a 2D box in `mode`; rank 0 checks everything.
void write_and_check(FileMode mode) {
  const int rank = world_rank();
  const int ranks = world_size();
  for (const Extents extents : {Extents{4, 3, uneven_total(ranks)}, Extents{5, uneven_total(ranks), 1}}) {
    const fs::path scratch = shared_scratch_directory("fields_mpi");
    BoxGeometry box;
    box.extents = extents;
    const std::vector<std::string> names = extents.nz > 1 ? std::vector<std::string>{"rho", "ux", "uy", "uz"}
                                                          : std::vector<std::string>{"rho", "ux", "uy"};
    FieldWriter writer(scratch, box, names, MPI_COMM_WORLD, mode);
    EXPECT_EQ(writer.file_mode(), mode == FileMode::automatic && !FieldWriter::parallel_hdf5()
                                      ? FileMode::file_per_rank
                                      : (mode == FileMode::automatic ? FileMode::single_file : mode));
    const std::vector<int> steps = {0, 10};
    for (int step : steps) {
      const SlabData data =
          make_slab(extents, static_cast<int>(names.size()), step, uneven_begin(rank), uneven_planes(rank));
      writer.write(step, 0.5 * step, data.slab);
    }
    if (rank == 0) {
      SCOPED_TRACE("extents " + std::to_string(extents.nx) + "x" + std::to_string(extents.ny) + "x" +
                   std::to_string(extents.nz) + ", mode " + karman::io::name(writer.file_mode()));
      check_on_rank0(scratch, writer, box, names, steps);
      fs::remove_all(scratch);
    }
    world().barrier();
  }
}

/// What every rank gets from `action`: the message and the lowest failing rank, or no message and
/// rank -1 when it throws no CollectiveError.
struct Failure {
  std::string message;
  int rank = -1;
};

template <class Action>
Failure failure_of(Action&& action) {
  try {
    action();
  } catch (const karman::comm::CollectiveError& e) {
    return {e.what(), e.failing_rank()};
  }
  return {};
}

}  // namespace

TEST(FieldWriterMpi, AutomaticMode) { write_and_check(FileMode::automatic); }

TEST(FieldWriterMpi, FilePerRank) { write_and_check(FileMode::file_per_rank); }

TEST(FieldWriterMpi, SingleSharedFile) {
  if (!FieldWriter::parallel_hdf5()) {
    BoxGeometry box;
    box.extents = Extents{4, 3, uneven_total(world_size())};
    EXPECT_THROW(FieldWriter("out", box, {"rho"}, MPI_COMM_WORLD, FileMode::single_file), karman::Error);
    GTEST_SKIP() << "serial HDF5: one shared file is refused";
  }
  write_and_check(FileMode::single_file);
}

TEST(FieldWriterMpi, BadSlabOnOneRankFailsOnEveryRank) {
  const int rank = world_rank();
  const int ranks = world_size();
  const fs::path scratch = shared_scratch_directory("fields_mpi_bad");
  BoxGeometry box;
  box.extents = Extents{4, 3, uneven_total(ranks)};
  FieldWriter writer(scratch, box, {"rho"}, MPI_COMM_WORLD);

  // The last rank hands over one value too few.
  SlabData data = make_slab(box.extents, 1, 0, uneven_begin(rank), uneven_planes(rank));
  if (rank == ranks - 1) data.slab.datasets[0].size -= 1;
  const Failure short_array = failure_of([&] { writer.write(0, 0.0, data.slab); });
  EXPECT_NE(short_array.message.find("dataset 'rho' has"), std::string::npos) << short_array.message;
  EXPECT_EQ(short_array.rank, ranks - 1) << short_array.message;

  // Every slab is valid alone, but rank 1 also claims plane 0: the slabs overlap.
  const int begin = rank == 1 ? 0 : uneven_begin(rank);
  const SlabData overlapping = make_slab(box.extents, 1, 0, begin, uneven_planes(rank));
  // Every rank finds the overlap in the same gathered slabs: rank 0 speaks for all.
  const Failure overlap = failure_of([&] { writer.write(0, 0.0, overlapping.slab); });
  EXPECT_NE(overlap.message.find("do not tile"), std::string::npos) << overlap.message;
  EXPECT_EQ(overlap.rank, 0) << overlap.message;

  // Ranks disagreeing on the step.
  const SlabData good = make_slab(box.extents, 1, 0, uneven_begin(rank), uneven_planes(rank));
  const Failure steps = failure_of([&] { writer.write(rank == 0 ? 1 : 2, 0.0, good.slab); });
  EXPECT_NE(steps.message.find("every rank writes the same step"), std::string::npos) << steps.message;
  EXPECT_EQ(steps.rank, 0) << steps.message;

  // Nothing was written, and the writer still works.
  world().barrier();
  if (rank == 0) {
    EXPECT_TRUE(list_directory(scratch).empty());
  }
  world().barrier();
  writer.write(0, 0.0, good.slab);
  if (rank == 0) {
    check_on_rank0(scratch, writer, box, {"rho"}, {0});
    fs::remove_all(scratch);
  }
  world().barrier();
}
