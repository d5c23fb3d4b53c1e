#pragma once
/// \file kernel_features.hpp
/// What a stream-collide or moments kernel is instantiated with besides lattice, precision,
/// layout and collision: the step kind it performs (stream_collide.hpp says what each does), the
/// features of the case it serves (walls, forces, moving walls) and its launch bounds.

#include <karman/core/extents.hpp>
#include <karman/lbm/precision.hpp>

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// Launch bounds of the stream-collide kernel: at most 256 threads a block. The bound changes
/// the compiler's register budget and, over the H100 sweep of every variant, made most of them
/// faster (docs/performance.md, launch bounds). CPU backends ignore it.
using StreamCollideLaunch = Kokkos::LaunchBounds<256, 1>;

/// Which kind of update a launch performs.
enum class StepKind { ab_pull, aa_odd, aa_even };

/// Launch bounds of the dense solver's stream-collide kernels of precision P and step kind K:
/// StreamCollideLaunch, but 4 blocks of 256 threads an SM (64 registers) for the AB update of
/// 16-bit storage, which is instruction-bound and gains from the occupancy; the AA updates lose
/// at 64 registers and keep the default (docs/performance.md §6.10).
template <class P, StepKind K>
using StreamCollideLaunchFor = Kokkos::LaunchBounds<256, (sizeof(storage_t<P>) == 2 && K == StepKind::ab_pull) ? 4 : 1>;

/// Compile-time features of a case: flags (walls/inlets; off for fully periodic fluid boxes),
/// a body force, whether that force is read per voxel from a field (immersed boundaries,
/// immersed_boundary.hpp) instead of being one uniform vector, and whether a wall may move
/// (Ladd's term; off, a bounced population reads neither its wall's flag word nor its velocity:
/// the block-sparse boundary kernel at porosity 0.3 runs 17 % faster, docs/performance.md).
template <bool Flags, bool Forced, bool ForceField = false, bool MovingWalls = true>
struct Features {
  static constexpr bool flags = Flags;
  static constexpr bool forced = Forced || ForceField;
  static constexpr bool force_field = ForceField;
  static constexpr bool moving_walls = Flags && MovingWalls;
};

/// The per-voxel body force a kernel of features with force_field reads: (local voxel, axis),
/// L::D components; an empty member for the other features.
template <class T, class MemorySpace, bool Field>
struct VoxelForce {};
template <class T, class MemorySpace>
struct VoxelForce<T, MemorySpace, true> {
  Kokkos::View<const T**, Kokkos::LayoutLeft, MemorySpace> field;
  /// The force of voxel v as the vector the collisions take (z = 0 on a 2D lattice).
  template <int D>
  KOKKOS_INLINE_FUNCTION void at(index_t v, T (&force)[3]) const {
    force[0] = field(v, 0);
    force[1] = field(v, 1);
    force[2] = D == 3 ? field(v, 2) : T(0);
  }
};

}  // namespace karman::lbm
