#include "checkpoint.hpp"

#include <karman/core/error.hpp>
#include <karman/io/atomic_file.hpp>
#include <karman/io/checkpoint_file.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>

namespace karman::app {
namespace {

namespace fs = std::filesystem;

/// 4: the manifest holds the run's history; a restart from an older one would lose it.
constexpr const char* manifest_format = "karman-checkpoint-4";

fs::path checkpoints_root(const fs::path& output) { return output / "checkpoints"; }

fs::path step_directory(const fs::path& output, long long step) {
  char name[32];
  std::snprintf(name, sizeof name, "step_%012lld", step);
  return checkpoints_root(output) / name;
}

std::string rank_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank_%04d.h5", rank);
  return name;
}

std::string hex(std::uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

/// Reads `directory`/manifest.json; throws karman::Error saying what is wrong.
CheckpointManifest read_manifest(const fs::path& directory) {
  const fs::path path = directory / "manifest.json";
  std::ifstream in(path);
  if (!in) throw Error("checkpoint '" + directory.string() + "': no manifest.json (incomplete or not a checkpoint)");
  std::stringstream text;
  text << in.rdbuf();
  CheckpointManifest m;
  m.directory = directory;
  try {
    m.document = nlohmann::json::parse(text.str());
    if (m.document.at("format").get<std::string>() != manifest_format) throw Error("format");
    m.step = m.document.at("step").get<long long>();
    (void)m.configuration();
    (void)m.history();
    if (!m.document.at("files").is_array() || m.document.at("files").empty()) throw Error("files");
    for (const auto& entry : m.document.at("files")) {
      (void)entry.at("file").get<std::string>();
      (void)entry.at("box_begin").get<std::array<long long, 3>>();
      (void)entry.at("box_extents").get<std::array<long long, 3>>();
    }
  } catch (const std::exception&) {
    throw Error("checkpoint '" + directory.string() + "': manifest.json is damaged or not a " + manifest_format +
                " manifest");
  }
  return m;
}

/// Step directories under `output`/checkpoints, complete or not, with their steps.
std::vector<std::pair<long long, fs::path>> step_directories(const fs::path& output) {
  std::vector<std::pair<long long, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(checkpoints_root(output), ec)) {
    const std::string name = entry.path().filename().string();
    long long step = 0;
    char rest = 0;
    if (entry.is_directory(ec) && std::sscanf(name.c_str(), "step_%lld%c", &step, &rest) == 1) {
      found.emplace_back(step, entry.path());
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return found;
}

/// Keeps the `keep` newest complete checkpoints; removes older ones and incomplete leftovers.
void prune(const fs::path& output, int keep) {
  int complete = 0;
  for (const auto& [step, directory] : step_directories(output)) {
    std::error_code ec;
    const bool has_manifest = fs::exists(directory / "manifest.json", ec);
    if (has_manifest && complete < keep) {
      ++complete;
    } else {
      fs::remove_all(directory, ec);
    }
  }
}

/// A box of the global grid: first voxel and extents along x, y, z.
struct GridBox {
  std::array<long long, 3> begin{}, extents{};
  long long voxels() const { return extents[0] * extents[1] * extents[2]; }
};

GridBox grid_box(const lbm::OwnedBox& box) {
  return {{box.begin[0], box.begin[1], box.begin[2]}, {box.extents.nx, box.extents.ny, box.extents.nz}};
}

/// The voxels boxes a and b share (extents 0 along some axis when none).
GridBox overlap(const GridBox& a, const GridBox& b) {
  GridBox o;
  for (std::size_t d = 0; d < 3; ++d) {
    o.begin[d] = std::max(a.begin[d], b.begin[d]);
    o.extents[d] = std::max(0LL, std::min(a.begin[d] + a.extents[d], b.begin[d] + b.extents[d]) - o.begin[d]);
  }
  return o;
}

/// Copies the voxels `from` and `to` share, `record` bytes each, from `in` (voxels of `from`, x
/// fastest) into `out` (voxels of `to`, x fastest) row by row; returns how many were copied.
long long copy_overlap(const GridBox& from, const std::byte* in, const GridBox& to, std::byte* out,
                       std::size_t record) {
  const GridBox shared = overlap(from, to);
  if (shared.voxels() == 0) return 0;
  const auto offset = [](const GridBox& b, long long x, long long y, long long z) {
    return std::size_t(((z - b.begin[2]) * b.extents[1] + (y - b.begin[1])) * b.extents[0] + (x - b.begin[0]));
  };
  const long long x = shared.begin[0];
  const std::size_t row = std::size_t(shared.extents[0]) * record;
  for (long long z = shared.begin[2]; z < shared.begin[2] + shared.extents[2]; ++z)
    for (long long y = shared.begin[1]; y < shared.begin[1] + shared.extents[1]; ++y)
      std::memcpy(out + offset(to, x, y, z) * record, in + offset(from, x, y, z) * record, row);
  return shared.voxels();
}

/// The body of write_checkpoint: every rank's file, then rank 0's manifest and pruning.
void write_rank_files_and_manifest(const comm::Ranks& ranks, const fs::path& output, lbm::FlowSolver& solver,
                                   const nlohmann::json& configuration, const nlohmann::json& history, int keep,
                                   const fs::path& directory, io::CheckpointBox& file) {
  const lbm::OwnedBox box = solver.owned_box();
  const long long step = solver.steps();
  ranks.run([&] {
    const Extents& global = box.global;
    const GridBox owned = grid_box(box);
    file.step = step;
    file.global_extents = {global.nx, global.ny, global.nz};
    file.box_begin = owned.begin;
    file.box_extents = owned.extents;
    file.components = solver.populations();
    file.value_size = solver.population_size();
    file.configuration = configuration.dump();
    file.values.resize(file.expected_bytes());
    solver.save_populations(file.values.data());
    file.flags.resize(file.voxels());
    solver.save_flags(file.flags.data());
    io::write_checkpoint_file(directory / rank_file_name(ranks.rank()), file);
  });
  ranks.run([&] {
    if (!ranks.root()) return;
    // Every rank's file is renamed into place; the manifest, written last, completes the checkpoint.
    nlohmann::json files = nlohmann::json::array();
    for (int r = 0; r < ranks.size(); ++r) {
      const io::CheckpointBox header = io::read_checkpoint_file(directory / rank_file_name(r), false);
      files.push_back({{"file", rank_file_name(r)},
                       {"box_begin", header.box_begin},
                       {"box_extents", header.box_extents},
                       {"bytes", header.expected_bytes()},
                       {"checksum_fnv1a64", hex(header.checksum)},
                       {"flags_checksum_fnv1a64", hex(header.flags_checksum)}});
    }
    const nlohmann::json manifest = {{"format", manifest_format},
                                     {"step", step},
                                     {"ranks", ranks.size()},
                                     {"global_extents", file.global_extents},
                                     {"populations", file.components},
                                     {"precision", configuration.at("variant").at("precision")},
                                     {"order",
                                      "(voxel, population), voxels x fastest over each file's box, "
                                      "post-collision"},
                                     {"flags", "one 32-bit word per voxel, solvers/include/karman/lbm/cell_flags.hpp"},
                                     {"files", files},
                                     {"configuration", configuration},
                                     {"history", history}};
    io::sync_directory(directory);
    io::write_file_atomically(directory / "manifest.json", manifest.dump(2) + "\n");
    io::sync_directory(directory);
    prune(output, keep);
    io::sync_directory(checkpoints_root(output));
  });
}

/// Throws karman::Error when the voxel kinds and boundary ids a checkpoint stored for this
/// rank's planes differ from the ones this run built from its case: the geometry (walls, inlets,
/// outlets, their ids) changed, and the populations would continue a different flow. The mask
/// bits are not compared: which populations a rank's kernel rebuilds next to a wall depends on
/// where its box ends (wall_slots.hpp), so they change with the rank count. Names the first voxel.
void check_flags(const std::string& where, const std::vector<lbm::flag_t>& stored, const lbm::FlowSolver& solver,
                 const lbm::OwnedBox& box) {
  std::vector<lbm::flag_t> built(stored.size());
  solver.save_flags(built.data());
  const auto differs = [](lbm::flag_t a, lbm::flag_t b) {
    return (a >> lbm::flags::kind_shift) != (b >> lbm::flags::kind_shift);
  };
  const auto first = std::mismatch(stored.begin(), stored.end(), built.begin(),
                                   [&](lbm::flag_t a, lbm::flag_t b) { return !differs(a, b); });
  if (first.first == stored.end()) return;
  const index_t k = first.first - stored.begin();
  const Extents& global = box.global;
  const index_t v = box.global_index(k);
  const long long differing =
      std::inner_product(stored.begin(), stored.end(), built.begin(), 0LL, std::plus<>(), differs);
  char text[160];
  std::snprintf(text, sizeof text, "%lld voxels, first at (%d, %d, %d): stored kind %u id %d, this run's kind %u id %d",
                differing, global.coordinate(v, 0), global.coordinate(v, 1), global.coordinate(v, 2),
                unsigned(lbm::flags::kind(*first.first)), lbm::flags::id(*first.first),
                unsigned(lbm::flags::kind(*first.second)), lbm::flags::id(*first.second));
  throw Error(where + ": its geometry (voxel kinds and boundary ids of walls, inlets, outlets) differs from this " +
              "run's at " + text);
}

}  // namespace

double write_checkpoint(const comm::Ranks& ranks, const fs::path& output, lbm::FlowSolver& solver,
                        const nlohmann::json& configuration, const nlohmann::json& history, int keep) {
  const long long step = solver.steps();
  const fs::path directory = step_directory(output, step);
  ranks.run([&] {
    if (!ranks.root()) return;
    std::error_code ec;
    // A link would put the checkpoint, and the pruning of older ones, into somebody else's folder.
    if (fs::is_symlink(checkpoints_root(output), ec)) {
      throw Error("checkpoint: '" + checkpoints_root(output).string() +
                  "' is a symbolic link; Karman does not write through links");
    }
    // A leftover of the same step (a run killed while writing it, temporary files and all) goes.
    fs::remove_all(directory, ec);
    fs::create_directories(directory, ec);
    if (ec) throw Error("checkpoint: cannot create directory '" + directory.string() + "': " + ec.message());
  });
  io::CheckpointBox file;
  try {
    write_rank_files_and_manifest(ranks, output, solver, configuration, history, keep, directory, file);
  } catch (const Error&) {
    // Every rank failed together (a full disk on one of them): the incomplete checkpoint goes,
    // the earlier ones stay.
    if (ranks.root()) {
      std::error_code ec;
      fs::remove_all(directory, ec);
    }
    throw;
  }
  return ranks.sum(double(file.values.size() + file.flags.size() * sizeof(std::uint32_t)));
}

std::vector<CheckpointManifest> restart_candidates(const std::string& what, const fs::path& output) {
  std::vector<CheckpointManifest> candidates;
  if (what != "latest") {
    fs::path directory = what;
    if (directory.filename() == "manifest.json") directory = directory.parent_path();
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) {
      throw Error("--restart '" + what + "': no such checkpoint directory (give a checkpoints/step_* directory, " +
                  "its manifest.json, or 'latest')");
    }
    candidates.push_back(read_manifest(directory));
    return candidates;
  }
  std::vector<std::string> skipped;
  for (const auto& [step, directory] : step_directories(output)) {
    try {
      candidates.push_back(read_manifest(directory));
    } catch (const Error&) {
      skipped.push_back(directory.filename().string());
    }
  }
  if (candidates.empty()) {
    throw Error("--restart latest: no complete checkpoint in '" + checkpoints_root(output).string() + "'" +
                (skipped.empty() ? std::string() : " (" + std::to_string(skipped.size()) + " incomplete)") +
                "; write some with --checkpoint-every K or --checkpoint-interval SECONDS");
  }
  return candidates;
}

CheckpointManifest load_checkpoint(const comm::Ranks& ranks, const std::vector<CheckpointManifest>& candidates,
                                   lbm::FlowSolver& solver) {
  const lbm::OwnedBox box = solver.owned_box();
  const Extents& global = box.global;
  const std::vector<long long> extents = {global.nx, global.ny, global.nz};
  const GridBox owned = grid_box(box);
  const std::size_t record = std::size_t(solver.populations()) * std::size_t(solver.population_size());
  std::string reasons;
  for (const CheckpointManifest& candidate : candidates) {
    std::vector<std::byte> buffer(record * std::size_t(owned.voxels()));
    std::vector<lbm::flag_t> stored_flags(std::size_t(owned.voxels()));
    try {
      ranks.run([&] {
        const std::string where = "checkpoint '" + candidate.directory.string() + "'";
        const auto& m = candidate.document;
        if (m.at("global_extents").get<std::vector<long long>>() != extents) {
          throw Error(where + ": box " + m.at("global_extents").dump() + ", this run's " +
                      nlohmann::json(extents).dump());
        }
        // The files tile the grid without overlap: the voxels copied from those that meet this
        // rank's box must be all of it.
        long long covered = 0;
        for (const auto& entry : m.at("files")) {
          const GridBox stored{entry.at("box_begin").get<std::array<long long, 3>>(),
                               entry.at("box_extents").get<std::array<long long, 3>>()};
          if (overlap(stored, owned).voxels() == 0) continue;
          const io::CheckpointBox file =
              io::read_checkpoint_file(io::file_inside(candidate.directory, entry.at("file").get<std::string>()));
          if (hex(file.checksum) != entry.at("checksum_fnv1a64").get<std::string>() ||
              hex(file.flags_checksum) != entry.at("flags_checksum_fnv1a64").get<std::string>() ||
              file.step != candidate.step || file.box_begin != stored.begin || file.box_extents != stored.extents) {
            throw Error(where + ": file " + entry.at("file").get<std::string>() +
                        " does not match the manifest (from another checkpoint?)");
          }
          if (file.components != solver.populations() || file.value_size != solver.population_size()) {
            throw Error(where + ": " + std::to_string(file.components) + " populations of " +
                        std::to_string(file.value_size) + " bytes, this run has " +
                        std::to_string(solver.populations()) + " of " + std::to_string(solver.population_size()));
          }
          covered += copy_overlap(stored, file.values.data(), owned, buffer.data(), record);
          copy_overlap(stored, reinterpret_cast<const std::byte*>(file.flags.data()), owned,
                       reinterpret_cast<std::byte*>(stored_flags.data()), sizeof(lbm::flag_t));
        }
        if (covered != owned.voxels()) {
          throw Error(where + ": its files cover " + std::to_string(covered) + " of the " +
                      std::to_string(owned.voxels()) + " voxels of this rank's box from (" +
                      std::to_string(owned.begin[0]) + ", " + std::to_string(owned.begin[1]) + ", " +
                      std::to_string(owned.begin[2]) + ")");
        }
        check_flags(where, stored_flags, solver, box);
      });
      ranks.run([&] { solver.load_populations(buffer.data(), candidate.step); });
      if (ranks.root() && !reasons.empty()) {
        std::fprintf(stderr, "karman: warning: skipped damaged checkpoints:%s; restarting from step %lld\n",
                     reasons.c_str(), candidate.step);
      }
      return candidate;
    } catch (const Error& e) {
      reasons += std::string("\n  ") + e.what();
    }
  }
  throw Error("no usable checkpoint:" + reasons);
}

}  // namespace karman::app
