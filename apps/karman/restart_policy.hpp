#pragma once
/// \file restart_policy.hpp
/// What a restart must keep and what it may change: the configuration a checkpoint stores (the
/// boundary values, a fingerprint of the geometry) compared with the run's, and the field files of
/// the interrupted run after its checkpoint removed.

#include <karman/lbm/solver_setup.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace karman::app {

/// The boundary table (wall velocities, inlet and outlet values) as a checkpoint stores it.
nlohmann::json boundary_table_json(const lbm::BoundaryTable& table);

/// A fingerprint of the flag field's source: every voxel's kind and boundary id, x fastest. A
/// checkpoint stores it in place of the flags, which the solver rebuilds from the case.
std::string geometry_fingerprint(const lbm::SolverSetup& setup);

/// The parameters a restart must keep (the physics) against those it may change; throws
/// karman::Error for a different case, box, lattice or precision, and for changed physics
/// unless `force`. Returns notes on what differs (layout, pattern: converted).
std::vector<std::string> compare_configurations(const nlohmann::json& stored, const nlohmann::json& current,
                                                bool force);

/// Removes the field files of steps after `step` (a restarted run's predecessor wrote them after
/// its last checkpoint; the continued run writes its own), so no file of two runs mixes.
void remove_fields_after(const std::filesystem::path& directory, long step);

}  // namespace karman::app
