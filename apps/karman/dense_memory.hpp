#pragma once
/// \file dense_memory.hpp
/// The memory check of a dense box before anything is allocated.

#include <karman/lbm/solver_setup.hpp>

namespace karman::app {

/// Refuses a run whose populations would not fit (throws karman::Error naming the need, the
/// memory available and what would help): the estimate counts the lattices (one AA, two AB) with
/// their halos, the flags and the moments per rank, against the device's memory, or on CPU
/// backends the smallest host limit shared by this node's ranks.
void check_dense_memory(const lbm::SolverSetup& setup, int ranks);

}  // namespace karman::app
