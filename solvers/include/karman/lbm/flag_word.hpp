#pragma once
/// \file flag_word.hpp
/// The flag word of one voxel (cell_flags.hpp), shared by the dense slab's flags (build_flags),
/// the block-sparse sample's (SparseSample) and a refined grid's levels (refined_step.hpp), so
/// every grid blocks the same populations.
#include <karman/core/error.hpp>
#include <karman/lbm/solver_setup.hpp>

#include <array>
#include <string>
#include <vector>

namespace karman::lbm::detail {

/// Flag word of a voxel of kind and id `self`: population i is blocked when `bounced(c_i)`
/// says that the kernel must bounce it off its source x - c_i (a solid voxel, or outside a
/// non-periodic box, that no pre-step copy serves: curved_wall.hpp, wall_slots.hpp), or when it
/// enters an inlet/outlet voxel through its boundary face. Throws karman::Error for a boundary
/// id out of range.
template <class Bounced>
flag_t flag_word(const CellSpec& self, const BoundaryTable& boundaries,
                 const std::vector<std::array<int, 3>>& velocities, const Bounced& bounced) {
  if (self.id < 0 || self.id >= max_boundaries) {
    throw Error("karman::lbm: boundary id " + std::to_string(self.id) + " out of range [0, " +
                std::to_string(max_boundaries - 1) + "]");
  }
  flag_t mask = 0;
  if (self.kind != CellKind::solid) {
    const BoundaryValue& bv = boundaries[self.id];
    const bool open_boundary = self.kind == CellKind::velocity_boundary || self.kind == CellKind::pressure_boundary;
    for (std::size_t i = 0; i < velocities.size(); ++i) {
      const auto& c = velocities[i];
      const bool enters_through_boundary = open_boundary && c[bv.normal_axis] * bv.normal_sign > 0;
      if (enters_through_boundary || bounced(c)) mask |= flag_t(1) << i;
    }
  }
  return flags::make(self.kind, self.id, mask);
}

}  // namespace karman::lbm::detail
