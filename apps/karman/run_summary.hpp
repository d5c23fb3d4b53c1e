#pragma once
/// \file run_summary.hpp
/// The parts of summary.json that describe the run's ranks and results rather than its options:
/// each rank's memory, its halo exchange counters, and a fingerprint of the final fields.

#include "global_fields.hpp"
#include "run_options.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/lbm/flow_solver.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace karman::app {

/// What each rank holds, on rank 0 (collective; an empty array on the others): its population
/// lattices, its stored voxels (halos included) and its process's peak resident host memory when
/// the time loop started (`setup_peak_host`: the construction's host tables show there) and now.
nlohmann::json memory_per_rank(const comm::Ranks& ranks, const lbm::FlowSolver& solver, double setup_peak_host);

/// The halo exchange of every rank (Meneghin & Mahmoud Table III's message and value counts,
/// split by the kind of neighbour), on rank 0 (collective); null in a build without MPI.
nlohmann::json comm_summary(const comm::Ranks& ranks, const lbm::FlowSolver& solver, const RunOptions& options);

/// A fingerprint of the final fields (FNV-1a over density and velocity): runs that must agree
/// bitwise (restarts, layouts, rank counts) compare it.
std::string fields_fingerprint(const GlobalFields& global);

}  // namespace karman::app
