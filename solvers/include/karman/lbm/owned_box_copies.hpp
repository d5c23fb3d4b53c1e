#pragma once
/// \file owned_box_copies.hpp
/// Copies between a grid's stored owned voxels and its rank's owned box (OwnedBox, x fastest):
/// the order of moments, checkpoints and output on every grid. A grid supplies where each of its
/// stored owned voxels lies in the box (a position functor: voxel -> box index, or -1 for a
/// stored voxel past the box's side); the copies are then the same kernels on a slab, a
/// Cartesian block and the block-sparse grid, and a box voxel no stored voxel maps to keeps
/// zeros (moments, populations) or a wall of id 0 (flags).

#include <karman/core/for_each.hpp>
#include <karman/core/group.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/population_access.hpp>

#include <cstddef>

namespace karman::lbm {

/// Box position of owned voxel v of a dense partition (slab or Cartesian block): its entry of
/// owned_box_order()'s table, or v - first where the table is empty because the two orders
/// agree (a slab, a 1×1×N block).
template <class MemorySpace>
struct DenseOwnedPosition {
  Kokkos::View<const index_t*, MemorySpace> order;
  index_t first = 0;  ///< the first owned voxel

  KOKKOS_INLINE_FUNCTION index_t operator()(index_t v) const {
    return order.extent(0) == 0 ? v - first : order(v - first);
  }
};

/// Copies the moments of stored owned voxels (`rho(v - first)`) to their box positions.
template <class Position>
struct PlaceMoments {
  Position at;
  Kokkos::View<const double*> rho;
  Kokkos::View<const double**, Kokkos::LayoutLeft> u;
  index_t first = 0;  ///< the stored voxel of the moments' first entry
  Kokkos::View<double*> box_rho;
  Kokkos::View<double**, Kokkos::LayoutLeft> box_u;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const index_t k = at(v);
    if (k < 0) return;
    box_rho(k) = rho(v - first);
    for (int d = 0; d < 3; ++d) box_u(k, d) = u(v - first, d);
  }
};

/// Copies the populations of stored owned voxels into box order (`load` false) or back (true),
/// each population in lattice order: AA keeps population i in slot opposite(i) after an even
/// step (InitializeEquilibrium), so a checkpoint of either pattern holds the same values.
template <class L, class Position, class FieldType, class Packed>
struct BoxPopulations {
  Position at;
  FieldType f;
  Packed packed;
  bool opposite_slots = false;
  bool load = false;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const index_t k = at(v);
    if (k < 0) return;
    for (int i = 0; i < L::Q; ++i) {
      const int slot = opposite_slots ? L::opposite(i) : i;
      if (load) {
        f(v, slot) = packed(k, i);
      } else {
        packed(k, i) = f(v, slot);
      }
    }
  }
};

/// Copies the flag words of stored owned voxels to their box positions.
template <class Position, class Flags, class BoxFlags>
struct PlaceFlags {
  Position at;
  Flags flags;
  BoxFlags box;

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const index_t k = at(v);
    if (k >= 0) box(k) = flags(v);
  }
};

/// The moments `stored` of the stored voxels from `first` on, for the owned ones `owned`, in box
/// order over `box_voxels` voxels.
template <class ExecutionSpace, class Position>
MomentFields moments_in_box_order(const MomentFields& stored, index_t first, VoxelRange owned, const Position& at,
                                  index_t box_voxels) {
  MomentFields out{Kokkos::View<double*>("karman::rho", box_voxels),
                   Kokkos::View<double**, Kokkos::LayoutLeft>("karman::u", box_voxels, 3)};
  const ExecutionSpace space;
  for_each("karman::moments_to_box", owned, space,
           PlaceMoments<Position>{at, stored.rho, stored.u, first, out.rho, out.u});
  compat::fence(space, "karman::moments_to_box_done");
  return out;
}

/// A caller's host buffer of (box voxel, population) values, seen as a view; buffers from
/// operator new or std::vector are aligned for any storage type.
template <class Value>
using HostPopulations =
    Kokkos::View<Value**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Writes the populations of the owned voxels of `f` to `out`, (box voxel, population) in
/// lattice order, `box_voxels` voxels (FlowSolver::save_populations).
template <class L, class FieldType, class Position>
void save_box_populations(const FieldType& f, VoxelRange owned, const Position& at, index_t box_voxels,
                          bool opposite_slots, std::byte* out) {
  using storage_type = typename FieldType::non_const_value_type;
  using packed_type = Kokkos::View<storage_type**, Kokkos::LayoutRight, typename FieldType::memory_space>;
  const packed_type packed("karman::saved_populations", box_voxels, L::Q);
  const typename FieldType::execution_space space;
  for_each("karman::gather_populations", owned, space,
           BoxPopulations<L, Position, FieldType, packed_type>{at, f, packed, opposite_slots, false});
  compat::fence(space, "karman::gather_populations_done");
  Kokkos::deep_copy(HostPopulations<storage_type>(reinterpret_cast<storage_type*>(out), box_voxels, L::Q), packed);
}

/// Takes save_box_populations' bytes back into the owned voxels of `f`.
template <class L, class FieldType, class Position>
void load_box_populations(const FieldType& f, VoxelRange owned, const Position& at, index_t box_voxels,
                          bool opposite_slots, const std::byte* in) {
  using storage_type = typename FieldType::non_const_value_type;
  using packed_type = Kokkos::View<storage_type**, Kokkos::LayoutRight, typename FieldType::memory_space>;
  const packed_type packed("karman::loaded_populations", box_voxels, L::Q);
  Kokkos::deep_copy(packed,
                    HostPopulations<const storage_type>(reinterpret_cast<const storage_type*>(in), box_voxels, L::Q));
  const typename FieldType::execution_space space;
  for_each("karman::scatter_populations", owned, space,
           BoxPopulations<L, Position, FieldType, packed_type>{at, f, packed, opposite_slots, true});
  compat::fence(space, "karman::scatter_populations_done");
}

/// Writes the flag words of the owned voxels to `out` in box order, `box_voxels` voxels; a box
/// voxel no stored voxel maps to reads as a wall of id 0 (FlowSolver::save_flags).
template <class Flags, class Position>
void save_box_flags(const Flags& flags, VoxelRange owned, const Position& at, index_t box_voxels, flag_t* out) {
  using box_type = Kokkos::View<flag_t*, typename Flags::memory_space>;
  const box_type box("karman::saved_flags", box_voxels);
  Kokkos::deep_copy(box, outside_flag);
  const typename Flags::execution_space space;
  for_each("karman::flags_to_box", owned, space, PlaceFlags<Position, Flags, box_type>{at, flags, box});
  compat::fence(space, "karman::flags_to_box_done");
  Kokkos::deep_copy(Kokkos::View<flag_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(out, box_voxels),
                    box);
}

}  // namespace karman::lbm
