#pragma once
/// \file wall_slots.hpp
/// Half-way bounce-back on walls at rest through the slots of their solid voxels, so that the
/// voxels next to such walls run the bulk kernel (Meneghin & Mahmoud §IV, Table II: keep
/// boundary code out of the kernel that does most of the work).
///
/// Population i of a fluid voxel x_f whose source x_s = x_f - c_i is a wall at rest is the
/// post-collision population opposite(i) of x_f itself (half-way bounce-back, Krüger et al.,
/// The Lattice Boltzmann Method (2017) §5.3.3). The flagged kernel fetches it from where that
/// population was stored; a small kernel before each step can instead copy it to the slot the
/// unflagged kernel reads for population i, which is a slot of the solid voxel x_s (read by x_f
/// alone, written by nobody: solid voxels are never updated) or, in the AA even step, x_f's own:
///   - AB pull:  slot i of x_s            <- slot opposite(i) of x_f
///   - AA odd:   slot opposite(i) of x_s  <- slot i of x_f (where the even step left it)
///   - AA even:  slot i of x_f            <- slot opposite(i) of x_s (where the odd step pushed it)
/// The pull of x_f then needs neither a flag word nor a branch. It is the curved walls' device
/// (curved_wall.hpp) at q = 1/2, reduced to a word copy: both slots hold the same population's
/// word (opposite populations share their weight, so even a weight-shifted FP16 word is copied
/// unchanged), and the results are bitwise those of the flagged kernel.
///
/// Only the populations a copy can serve take this path (build_wall_slots in solver.hpp): walls
/// at rest (a moving wall adds Ladd's term in FP32 after decoding, which a stored word would
/// round), a source inside the box without a periodic wrap, and in this rank's owned voxels (a
/// halo plane's slots are overwritten by the exchange). Every other wall population keeps its
/// bit in the flag word and the boundary kernel bounces it.

#include <karman/core/extents.hpp>
#include <karman/lbm/kernel_features.hpp>

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// One population bounced through a solid voxel's slot: slot `direction` of local voxel `solid`
/// receives population opposite(direction) of the fluid voxel solid + c_direction, `fluid`
/// (stored: a Cartesian block's numbering is not x fastest, so no offset finds it).
struct WallSlot {
  index_t solid = 0;
  index_t fluid = 0;
  int direction = 0;
};

/// Copies the bounced population of every wall slot for a step of kind `Kind` (see the file
/// comment). Slots sorted by direction, then by voxel, keep consecutive threads on consecutive
/// words of one population.
template <class L, StepKind Kind, class FieldType, class MemorySpace>
struct FillWallSlots {
  FieldType f;
  Kokkos::View<const WallSlot*, MemorySpace> slots;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t k) const {
    const WallSlot s = slots(k);
    const int i = s.direction, o = L::opposite(i);
    const index_t fluid = s.fluid;
    if constexpr (Kind == StepKind::ab_pull) {
      f(s.solid, i) = f(fluid, o);
    } else if constexpr (Kind == StepKind::aa_odd) {
      f(s.solid, o) = f(fluid, i);
    } else {
      f(fluid, i) = f(s.solid, o);
    }
  }
};

}  // namespace karman::lbm
