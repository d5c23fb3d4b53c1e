#pragma once
/// \file refined_geometry.hpp
/// What the voxels of a refined grid's levels are: walls (solid voxels with a boundary id, whose
/// velocity the BoundaryTable gives) or fluid, each level in its own voxels, and the flag word
/// (cell_flags.hpp) each voxel gets from it, as on the dense and block-sparse grids
/// (flag_word.hpp): a population is bounced where its source is a wall or lies past a closed side
/// of the box. The grid's boundary blocks are those holding a voxel whose flag word is not the
/// bulk's (refined_boundary), so that the solver's kernels read flag words there only.

#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/flag_word.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/update_schedule.hpp>
#include <karman/lbm/velocity_set.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <optional>
#include <vector>

namespace karman::lbm {

/// Whether a wall of velocity `wall` moves (the kernels then add Ladd's term for it).
inline bool moves(const BoundaryValue& wall) { return wall.u[0] != 0 || wall.u[1] != 0 || wall.u[2] != 0; }

/// Whether a voxel of kind `kind` is an inlet or outlet (a regularized boundary, rebuilt each step).
inline bool is_open_boundary(CellKind kind) {
  return kind == CellKind::velocity_boundary || kind == CellKind::pressure_boundary;
}

/// The walls of a refined grid: `cell(level, voxel)`, in the level's voxel coordinates, says what a
/// voxel is (all fluid when empty); `boundaries` holds each wall id's velocity (a moving lid). The
/// closed sides of the box are walls at rest besides, as the block-sparse grid's (outside_flag).
struct RefinedGeometry {
  std::function<CellSpec(int level, const std::array<int, 3>& voxel)> cell;
  BoundaryTable boundaries;
  /// The boundary id of a curved body's solid voxels (curved_wall.hpp), or -1: their populations
  /// are not bounced but pulled from the solid voxels' slots, where the cut links' kernel leaves
  /// the reflected values.
  int curved_id = -1;

  /// What voxel `voxel` of `level` is.
  CellSpec at(int level, const std::array<int, 3>& voxel) const { return cell ? cell(level, voxel) : CellSpec{}; }

  /// True when a wall moves (the kernels then add Ladd's term).
  bool walls_move() const {
    return std::any_of(std::begin(boundaries.values), std::end(boundaries.values),
                       [](const BoundaryValue& b) { return moves(b); });
  }
};

/// The boundary values of `table` for the voxels of `level`: the same velocities and densities
/// (acoustic scaling keeps the lattice velocity from level to level), each inflow parabola's zeros
/// moved into the level's voxel coordinates, so that a voxel's factor is the finest grid's at its
/// centre (a voxel x of level l spans the finest voxels x 2^l .. x 2^l + 2^l - 1).
inline BoundaryTable level_boundaries(const BoundaryTable& table, int level) {
  BoundaryTable at = table;
  const double span = double(1 << level), centre = (span - 1.0) / 2.0;
  for (BoundaryValue& b : at.values) {
    for (int k = 0; k < 2; ++k) {
      b.profile_lo[k] = (b.profile_lo[k] - centre) / span;
      b.profile_hi[k] = (b.profile_hi[k] - centre) / span;
    }
  }
  return at;
}

/// The voxel x - c of `level` a population moving along c reaches x from, wrapped along the
/// periodic axes of a Dim-dimensional box; none where it lies past a closed side.
template <int Dim>
std::optional<std::array<int, 3>> refined_source(const RefinedLevels<Dim>& levels, int level,
                                                 const std::array<int, 3>& x, const std::array<int, 3>& c) {
  const Extents& box = levels.extents(level);
  std::array<int, 3> from{0, 0, 0};
  for (int a = 0; a < Dim; ++a) {
    const int n = box.extent(a);
    int f = x[std::size_t(a)] - c[std::size_t(a)];
    if (f < 0 || f >= n) {
      if (!levels.periodic(a)) return std::nullopt;
      f = ((f % n) + n) % n;
    }
    from[std::size_t(a)] = f;
  }
  return from;
}

/// Whether `cell` is a wall that bounces populations (the curved body's voxels hold them instead).
inline bool bounces(const RefinedGeometry& geometry, const CellSpec& cell) {
  return cell.kind == CellKind::solid && cell.id != geometry.curved_id;
}

/// What voxel `x` of `level` (inside the box) is to the populations that cross it, on any level's
/// path: what the geometry says of the leaf whose space holds it (x where it is a leaf, the coarser
/// leaf around it where it lies in coarser space); in finer space, a wall where walls fill all of
/// it (the wall of its first finest voxel) and fluid elsewhere, so that a coarse path bounces where
/// the finer paths it stands for do (level_coupling.hpp).
template <int Dim>
CellSpec refined_cell(const RefinedLevels<Dim>& levels, const RefinedGeometry& geometry, int level,
                      std::array<int, 3> x) {
  const int b = levels.block_edge();
  const auto cover = [&](int l, const std::array<int, 3>& at) {
    return levels.cover(l, {at[0] / b, at[1] / b, Dim == 3 ? at[2] / b : 0});
  };
  const LevelCover c = cover(level, x);
  if (c == LevelCover::refined) {
    CellSpec first;
    for (int k = 0; k < (1 << Dim); ++k) {
      std::array<int, 3> child{0, 0, 0};
      for (int a = 0; a < Dim; ++a) child[std::size_t(a)] = 2 * x[std::size_t(a)] + ((k >> a) & 1);
      const CellSpec cell = refined_cell(levels, geometry, level - 1, child);
      if (!bounces(geometry, cell)) return CellSpec{};
      if (k == 0) first = cell;
    }
    return first;
  }
  while (c == LevelCover::coarser && level + 1 < levels.levels()) {
    for (int a = 0; a < Dim; ++a) x[std::size_t(a)] /= 2;
    ++level;
    if (cover(level, x) == LevelCover::leaf) break;
  }
  return geometry.at(level, x);
}

/// The flag word of voxel `x` of `level` for lattice L: its kind and id, and its populations
/// whose source x - c_i is a wall (refined_cell; not the curved body) or lies past a closed side
/// bounced (flag_word.hpp).
template <class L>
flag_t refined_flag(const RefinedLevels<L::D>& levels, const RefinedGeometry& geometry, int level,
                    const std::array<int, 3>& x, const std::vector<std::array<int, 3>>& velocities) {
  return detail::flag_word(geometry.at(level, x), geometry.boundaries, velocities, [&](const std::array<int, 3>& c) {
    const auto from = refined_source(levels, level, x, c);
    return !from || bounces(geometry, refined_cell(levels, geometry, level, *from));
  });
}

/// The classifier a RefinedGrid tells its boundary blocks apart with: the voxels whose flag word
/// for lattice L is not the bulk's (a wall, or a voxel that bounces a population). `levels` and
/// `geometry` must outlive the grid's construction.
template <class L, int B, class MemorySpace>
typename RefinedGrid<L::D, B, MemorySpace>::Boundary refined_boundary(const RefinedLevels<L::D>& levels,
                                                                      const RefinedGeometry& geometry) {
  return [&levels, &geometry, velocities = velocity_set<L>()](int level, const std::array<int, 3>& voxel) {
    return !is_bulk(refined_flag<L>(levels, geometry, level, voxel, velocities));
  };
}

}  // namespace karman::lbm
