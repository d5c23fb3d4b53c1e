#include "restart_policy.hpp"

#include <karman/core/error.hpp>
#include <karman/io/checkpoint_file.hpp>

#include <cstdint>
#include <cstdio>

namespace karman::app {

nlohmann::json boundary_table_json(const lbm::BoundaryTable& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const lbm::BoundaryValue& b : table.values) {
    // Axis, lo and hi of each parabola in use; a uniform boundary stores [-1, 0, 0].
    nlohmann::json profile = nlohmann::json::array();
    for (int k = 0; k < 2; ++k) {
      if (b.profile_axis[k] >= 0 || k == 0) {
        profile.insert(profile.end(), {b.profile_axis[k], b.profile_lo[k], b.profile_hi[k]});
      }
    }
    rows.push_back({{"rho", b.rho},
                    {"u", {b.u[0], b.u[1], b.u[2]}},
                    {"normal_axis", b.normal_axis},
                    {"normal_sign", b.normal_sign},
                    {"profile", profile}});
  }
  return rows;
}

std::string geometry_fingerprint(const lbm::SolverSetup& setup) {
  const Extents& g = setup.global;
  // One checksum per z plane, then one over those: memory for a plane, not for the box.
  std::vector<std::uint64_t> planes;
  std::vector<std::uint32_t> cells(std::size_t(g.nx) * std::size_t(g.ny) * 2);
  for (int z = 0; z < g.nz && setup.geometry; ++z) {
    std::size_t k = 0;
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const lbm::CellSpec c = setup.geometry(x, y, z);
        cells[k++] = static_cast<std::uint32_t>(c.kind);
        cells[k++] = static_cast<std::uint32_t>(c.id);
      }
    planes.push_back(io::checksum(reinterpret_cast<const std::byte*>(cells.data()), cells.size() * sizeof(cells[0])));
  }
  char text[20];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(io::checksum(reinterpret_cast<const std::byte*>(planes.data()),
                                                             planes.size() * sizeof(planes[0]))));
  return text;
}

std::vector<std::string> compare_configurations(const nlohmann::json& stored, const nlohmann::json& current,
                                                bool force) {
  const std::string where = "--restart: ";
  if (stored.at("case") != current.at("case")) {
    throw Error(where + "the checkpoint is of case " + stored.at("case").dump() + ", this run is " +
                current.at("case").dump());
  }
  for (const char* key : {"lattice", "precision"}) {
    if (stored.at("variant").at(key) != current.at("variant").at(key)) {
      throw Error(where + "the checkpoint has " + key + " " + stored.at("variant").at(key).dump() + ", this run " +
                  current.at("variant").at(key).dump() + "; give the checkpoint's --" + key);
    }
  }
  if (stored.at("extents") != current.at("extents")) {
    throw Error(where + "the checkpoint's box is " + stored.at("extents").dump() + ", this run's " +
                current.at("extents").dump());
  }
  if (stored.value("geometry_fnv1a64", nlohmann::json()) != current.value("geometry_fnv1a64", nlohmann::json())) {
    throw Error(where + "the checkpoint's geometry (walls, inlets, outlets) differs from this run's");
  }
  std::vector<std::string> changed;
  if (stored.value("boundaries", nlohmann::json()) != current.value("boundaries", nlohmann::json())) {
    changed.push_back("boundary values");
  }
  for (const auto& [key, value] : stored.at("parameters").items()) {
    const auto now = current.at("parameters").find(key);
    if (now == current.at("parameters").end() || *now != value) {
      changed.push_back(key + " " + value.dump() + " -> " +
                        (now == current.at("parameters").end() ? std::string("none") : now->dump()));
    }
  }
  if (stored.at("variant").at("collision") != current.at("variant").at("collision")) {
    changed.push_back("collision " + stored.at("variant").at("collision").dump() + " -> " +
                      current.at("variant").at("collision").dump());
  }
  std::vector<std::string> notes;
  if (!changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    if (!force) {
      throw Error(where + "physical parameters differ from the checkpoint's (" + list +
                  "); give the checkpoint's values, or --force to continue with the new ones");
    }
    notes.push_back("continuing with changed parameters (--force): " + list);
  }
  for (const char* key : {"layout", "pattern"}) {
    if (stored.at("variant").at(key) != current.at("variant").at(key)) {
      notes.push_back(std::string("checkpoint ") + key + " " + stored.at("variant").at(key).dump() + " converted to " +
                      current.at("variant").at(key).dump());
    }
  }
  return notes;
}

void remove_fields_after(const std::filesystem::path& directory, long step) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    long file_step = 0;
    if (std::sscanf(name.c_str(), "fields_%ld", &file_step) == 1 && name.size() > 3 &&
        name.compare(name.size() - 3, 3, ".h5") == 0 && file_step > step) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
}

}  // namespace karman::app
