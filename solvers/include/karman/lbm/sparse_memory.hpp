#pragma once
/// \file sparse_memory.hpp
/// What a block-sparse solver (sparse_solver.hpp) will allocate, computed on the host from the
/// setup alone, before anything is allocated: the caller refuses a run that would not fit
/// while nothing has been allocated on the device or written.

#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <cstddef>
#include <cstdint>

namespace karman::lbm {

/// Bytes of a block-sparse solver's allocations in its memory space, by what they hold, and
/// the host memory its construction needs on the way.
struct SparseMemoryEstimate {
  std::int64_t blocks = 0;           ///< stored blocks
  std::int64_t voxels = 0;           ///< voxels of the stored blocks, inactive ones included
  std::int64_t fluid_voxels = 0;     ///< voxels updated each step (stored and not solid)
  std::size_t population_bytes = 0;  ///< one lattice (AA) or two (AB) of Q populations per stored voxel
  std::size_t flag_bytes = 0;        ///< one flag word per stored voxel
  std::size_t grid_bytes = 0;        ///< neighbour-block table, voxel masks, boundary bits, block origins
  /// Transient: the initial density and velocity (8 + 24 bytes a voxel) the constructor fills the
  /// lattice from and frees again.
  std::size_t initial_state_bytes = 0;
  /// Transient: the stored voxels' density and velocity (8 + 24 bytes a voxel) that moments()
  /// computes and gathers into box order; the box-order result is the caller's (the run loop's
  /// share of memory_need in porous_command.cpp).
  std::size_t moments_bytes = 0;
  /// Host memory of the construction on top of the caller's: the classified sample (a byte a
  /// voxel of the box), the grid's host tables and the initial state assembled on the host.
  std::size_t host_bytes = 0;

  /// What stays allocated while the solver lives.
  std::size_t persistent_bytes() const { return population_bytes + flag_bytes + grid_bytes; }
  /// The most the memory space holds at once: the solver with one moments() result, or its
  /// construction's initial state.
  std::size_t peak_bytes() const {
    return persistent_bytes() + (moments_bytes > initial_state_bytes ? moments_bytes : initial_state_bytes);
  }
  /// persistent_bytes() per fluid voxel.
  double bytes_per_fluid_voxel() const {
    return fluid_voxels > 0 ? double(persistent_bytes()) / double(fluid_voxels) : 0.0;
  }
};

/// The memory make_sparse_solver(setup, grouping) will allocate, from the block count and
/// stored voxels the setup's geometry gives (SparseSample's classification, the grid's
/// blocking), the lattice, the precision and the pattern. Allocates nothing in any Kokkos
/// memory space. Throws karman::Error for names outside the registry.
SparseMemoryEstimate estimate_sparse_memory(const SolverSetup& setup);

}  // namespace karman::lbm
