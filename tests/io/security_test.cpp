// Issue 51's file-system holes, one table or case per mechanism: no output is written through a
// link planted at its name, temporary names cannot be guessed, a checkpoint manifest cannot name
// files outside its directory, --overwrite removes only what a run listed, one run at a time
// holds a directory, and input files are checked (kind, size) before a byte is read.
#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/checkpoint_file.hpp>
#include <karman/io/csv.hpp>
#include <karman/io/input_file.hpp>
#include <karman/io/json.hpp>
#include <karman/io/output_directory.hpp>

#include "../common/expect_error.hpp"
#include "io_test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using karman::io_test::make_scratch_directory;
using karman::io_test::read_text;
using karman::test::error_of;

namespace {

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST(NoWriteThroughLinks, EveryWriterRefusesALinkAtItsName) {
  const fs::path scratch = make_scratch_directory("links");
  const std::vector<std::pair<std::string, std::function<void(const fs::path&)>>> writers = {
      {"write_file_atomically", [](const fs::path& p) { karman::io::write_file_atomically(p, "new\n"); }},
      {"write_csv", [](const fs::path& p) { karman::io::write_csv(p, {"a"}, {{1.0}}); }},
      {"write_json",
       [](const fs::path& p) {
         karman::io::write_json(p, {{"a", 1}});
       }},
      {"create_file_beside", [](const fs::path& p) { karman::io::create_file_beside(p); }},
  };
  for (const auto& [name, write] : writers) {
    const fs::path victim = scratch / ("victim_" + name);
    write_text(victim, "somebody else's\n");
    fs::create_symlink(victim, scratch / name);
    const std::string message = error_of([&] { write(scratch / name); });
    EXPECT_NE(message.find("symbolic link"), std::string::npos) << name << ": " << message;
    EXPECT_EQ(read_text(victim), "somebody else's\n") << name;
    EXPECT_TRUE(fs::is_symlink(scratch / name)) << name;
  }
}

TEST(NoWriteThroughLinks, TemporaryNamesAreFreshAndUnpredictable) {
  const fs::path scratch = make_scratch_directory("fresh");
  // The name the old scheme picked first (pid, counter 0) as a planted link: never opened.
  const fs::path victim = scratch / "victim";
  write_text(victim, "somebody else's\n");
  fs::create_symlink(victim, scratch / (".out." + std::to_string(::getpid()) + ".0.tmp"));
  const fs::path a = karman::io::create_file_beside(scratch / "out");
  const fs::path b = karman::io::create_file_beside(scratch / "out");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.filename().string().size(), std::string(".out.").size() + 16 + 4) << a;
  EXPECT_FALSE(fs::is_symlink(a));
  karman::io::replace_file(a, scratch / "out");
  EXPECT_TRUE(fs::is_regular_file(scratch / "out"));
  EXPECT_FALSE(fs::exists(a));
  EXPECT_EQ(read_text(victim), "somebody else's\n");
}

TEST(CheckpointConfinement, ManifestNamesStayInsideTheDirectory) {
  const fs::path scratch = make_scratch_directory("confined");
  const fs::path directory = scratch / "checkpoints" / "step_1";
  fs::create_directories(directory / "sub");
  write_text(scratch / "outside.h5", "x");
  write_text(directory / "rank_0000.h5", "x");
  fs::create_symlink(scratch / "outside.h5", directory / "out_link.h5");
  fs::create_symlink(directory / "rank_0000.h5", directory / "in_link.h5");
  fs::create_symlink(scratch, directory / "up");
  const struct {
    std::string name;
    bool accepted;
  } cases[] = {
      {"rank_0000.h5", true},
      {"sub/rank_0001.h5", true},
      {"in_link.h5", true},
      {"", false},
      {"/etc/passwd", false},
      {(scratch / "outside.h5").string(), false},
      {"../../outside.h5", false},
      {"sub/../../x.h5", false},
      {"out_link.h5", false},
      {"up/outside.h5", false},
      {"..", false},
  };
  for (const auto& c : cases) {
    if (c.accepted) {
      EXPECT_EQ(karman::io::file_inside(directory, c.name), directory / c.name) << c.name;
    } else {
      const std::string message = error_of([&] { karman::io::file_inside(directory, c.name); });
      EXPECT_NE(message.find("'" + c.name + "'"), std::string::npos) << message;
    }
  }
}

TEST(Overwrite, RemovesOnlyWhatTheRunListed) {
  const fs::path scratch = make_scratch_directory("overwrite");
  const fs::path out = scratch / "out";
  karman::io::prepare_output_directory(out);
  karman::io::record_outputs_in(out);
  fs::create_directories(out / "checkpoints" / "step_1");
  karman::io::write_json(out / "summary.json", {{"a", 1}});
  karman::io::write_file_atomically(out / "checkpoints" / "step_1" / "manifest.json", "{}\n");
  karman::io::write_file_atomically(scratch / "beside.txt", "not below out: not listed\n");
  // Somebody else's files among and beside the run's, and a listed name leading outside.
  write_text(out / "checkpoints" / "model.pt", "weights");
  write_text(out / "profile.csv", "theirs");
  fs::create_directories(out / "fields_archive.h5");
  write_text(scratch / "outside.txt", "theirs");
  std::ofstream(out / karman::io::manifest_name, std::ios::app) << "../outside.txt\n/etc/hostname\n";
  karman::io::record_outputs_in(scratch / "elsewhere");

  const std::vector<std::string> removed = karman::io::remove_earlier_run_files(out);
  EXPECT_EQ(removed, (std::vector<std::string>{"checkpoints/step_1/manifest.json", "summary.json"}));
  EXPECT_FALSE(fs::exists(out / "summary.json"));
  EXPECT_FALSE(fs::exists(out / "checkpoints" / "step_1"));
  EXPECT_TRUE(fs::exists(out / "checkpoints" / "model.pt"));
  EXPECT_TRUE(fs::exists(out / "profile.csv"));
  EXPECT_TRUE(fs::is_directory(out / "fields_archive.h5"));
  EXPECT_TRUE(fs::exists(scratch / "outside.txt"));
  EXPECT_TRUE(fs::exists(scratch / "beside.txt"));
  EXPECT_FALSE(fs::exists(out / karman::io::manifest_name));
  // Without a manifest (a directory Karman never wrote) nothing goes.
  EXPECT_TRUE(karman::io::remove_earlier_run_files(out).empty());
  EXPECT_TRUE(fs::exists(out / "profile.csv"));
}

TEST(DirectoryLock, OneHolderAtATime) {
  const fs::path out = make_scratch_directory("lock");
  {
    const karman::io::DirectoryLock first(out);
    const std::string message = error_of([&] { karman::io::DirectoryLock second(out); });
    EXPECT_NE(message.find("in use by another karman run"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(karman::io::DirectoryLock again(out));
}

TEST(InputFile, KindAndSizeCheckedBeforeReading) {
  const fs::path scratch = make_scratch_directory("input");
  write_text(scratch / "small.toml", "[cavity]\nn = 8\n");
  write_text(scratch / "large.toml", std::string(2000, '#'));
  ASSERT_EQ(::mkfifo((scratch / "fifo").c_str(), 0600), 0);
  const struct {
    fs::path path;
    std::string words;
  } refused[] = {
      {"/dev/zero", "is a character device, not a regular file"},
      {scratch, "is a directory"},
      {scratch / "fifo", "is a FIFO"},
      {scratch / "large.toml", "is 2000 bytes, more than Karman reads; the limit is 1000 bytes"},
      {scratch / "absent.toml", "no such file"},
  };
  for (const auto& r : refused) {
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_of([&] { karman::io::read_input_file(r.path, 1000, "--config"); });
    EXPECT_NE(message.find("--config '" + r.path.string() + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(r.words), std::string::npos) << message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << r.path;
  }
  EXPECT_EQ(karman::io::read_input_file(scratch / "small.toml", 1000, "--config"), "[cavity]\nn = 8\n");
}
