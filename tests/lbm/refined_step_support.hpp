#pragma once
// What the tests of the refined step share: populations that differ on every voxel, level and
// population, the coordinates of a level grid's voxels, host copies of a level's populations and
// the mass of every level's leaves.
#include <karman/core/field.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/lbm/refined_step.hpp>

#include <array>
#include <cmath>

namespace karman::test {

/// Populations near rest that differ on every voxel, level and population.
template <class L>
double initial(int level, const std::array<int, 3>& at, int i) {
  return L::w(i) * (1.0 + 0.04 * std::sin(0.37 * at[0] + 0.71 * at[1] + 0.53 * at[2] + 1.3 * i + 2.1 * level));
}

/// Coordinates on level l of voxel v of that level's grid.
template <int Dim, int B>
std::array<int, 3> coordinates(const RefinedGrid<Dim, B>& grid, int l, index_t v) {
  return grid.voxel_coordinates(l, v);
}

/// Whether voxel v of level l's grid is a leaf voxel (not in an overlap block).
template <int Dim, int B>
bool leaf(const RefinedGrid<Dim, B>& grid, int l, index_t v) {
  return grid.leaf(l, v);
}

/// Sets population i of every leaf voxel of `step` to init(level, coordinates, i), the overlap
/// voxels (which no pull reads) to zero.
template <class L, class T, class Collision, int B, class Init>
void set_populations(lbm::RefinedStep<L, T, Collision, B>& step, const RefinedGrid<L::D, B>& grid, const Init& init) {
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    auto host = karman::create_mirror_view(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      for (int i = 0; i < L::Q; ++i) host(v, i) = leaf(grid, l, v) ? T(init(l, coordinates(grid, l, v), i)) : T(0);
    }
    karman::deep_copy(step.populations(l), host);
  }
}

/// A host copy of a level's populations (voxel, population).
template <class FieldType>
auto host_copy(const FieldType& field) {
  auto host = karman::create_mirror_view(field);
  karman::deep_copy(host, field);
  return host;
}

/// Mass of every level's leaves in finest-voxel units, but for the wall voxels of `walls` (which
/// no kernel updates: their slots in the two lattices differ).
template <class L, class T, class Collision, int B>
double mass(const lbm::RefinedStep<L, T, Collision, B>& step, const RefinedGrid<L::D, B>& grid,
            const lbm::RefinedGeometry& walls = {}) {
  double sum = 0;
  for (int l = 0; l < grid.levels(); ++l) {
    if (grid.empty(l)) continue;
    const auto host = host_copy(step.populations(l));
    for (index_t v = 0; v < grid.level(l).voxel_count(); ++v) {
      if (!leaf(grid, l, v) || walls.at(l, coordinates(grid, l, v)).kind == lbm::CellKind::solid) continue;
      double voxel = 0;
      for (int i = 0; i < L::Q; ++i) voxel += double(host(v, i));
      sum += double(index_t(1) << (L::D * l)) * voxel;
    }
  }
  return sum;
}

}  // namespace karman::test
