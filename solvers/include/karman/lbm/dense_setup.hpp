#pragma once
/// \file dense_setup.hpp
/// The host-side set-up of a dense solver on a slab or Cartesian block (solvers/src/solver_setup.cpp):
/// flag words, curved-wall links, wall slots, the initial state and the owned voxels' box order,
/// built from a case's SolverSetup before anything goes to the device.

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/extents.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/wall_slots.hpp>

#include <array>
#include <vector>

namespace karman::lbm {

/// Builds the flag word of every local voxel (halos included) of a slab or block partition
/// (instantiated for SlabPartition and CartesianPartition) from a case's geometry. A population
/// is blocked when its source voxel is solid, outside a non-periodic box, or enters an
/// inlet/outlet voxel through its boundary face.
template <class Partition>
std::vector<flag_t> build_flags(const Partition& part, const SolverSetup& setup,
                                const std::vector<std::array<int, 3>>& velocities);

/// The cut links of `setup`'s curved body in this rank's slab (curved_wall.hpp), with the order
/// of interpolation each link's neighbourhood allows. Throws karman::Error for a body that
/// moves (interpolated bounce-back is implemented for walls at rest) or a q outside (0, 1].
std::vector<WallLink> build_wall_links(const SlabPartition& part, const SolverSetup& setup,
                                       const std::vector<std::array<int, 3>>& velocities);

/// The populations of this rank's owned voxels that bounce off walls at rest through a solid
/// voxel's slot (wall_slots.hpp), sorted by direction, then voxel; exactly those whose bit
/// build_flags leaves clear for that reason. Slab or block partition, as build_flags.
template <class Partition>
std::vector<WallSlot> build_wall_slots(const Partition& part, const SolverSetup& setup,
                                       const std::vector<std::array<int, 3>>& velocities);

/// Initial density and velocity of every local voxel (halos included), host arrays; slab or
/// block partition, as build_flags.
template <class Partition>
void build_initial_state(const Partition& part, const SolverSetup& setup, std::vector<double>& rho,
                         std::vector<double>& u);

/// Position in owned_box() order (x fastest over the owned box) of each owned voxel of `part`,
/// in memory order; empty when the two orders agree (a slab, a 1×1×N block).
template <class Partition>
std::vector<index_t> owned_box_order(const Partition& part);

}  // namespace karman::lbm
