#pragma once
/// \file level_coupling.hpp
/// Where the voxels next to a level jump of a refined grid (refined_grid.hpp) pull their
/// populations from: the coupling of levels as virtual fine streaming (docs/multiresolution.md).
/// A voxel of level l + 1 stands for 2^Dim virtual voxels of level l, and every population moves
/// one level-l voxel a level-l step along its own path, so each one has exactly one receiver
/// (mass and momentum conserved to rounding at the corners and edges of a refined region too):
///  - explosion: a voxel x of level l whose upwind voxel x - c_i lies in coarser space pulls, in
///    the first of the two sub-steps of the coarser level's step, the coarse voxel's value there;
///    in the second, what stood at x - 2 c_i when the sub-steps began (the coarse value, or a
///    level-l value that crossed the coarse space at a corner);
///  - coalescence: a voxel X of level l + 1 pulls the mean over its 2^Dim virtual voxels y of what
///    reaches y along y - c_i, y - 2 c_i: a finer voxel's value after the first sub-step, or
///    before it, or (where both path points are X's level or coarser) X's own pull.
/// The tables list, per level, the populations whose pull is not the level's uniform pull from
/// x - c_i, and the sources of each (one, or 2^Dim averaged in order). Only leaves next to a
/// jump (RefinedBlockRole::leaf_at_jump) have any: the others run the uniform kernel (seed 000
/// §V, the disaggregated schedule). tests/lbm/refined_reference.hpp steps the same coupling over
/// dense arrays; lbm_level_coupling_test checks that both give the same sources everywhere.
///
/// A closed side of the box bounces the virtual paths back as it bounces a level's own pulls
/// (half-way bounce-back, at rest): a path that would leave the box turns back in place, the
/// population reversed, so a jump may meet a closed side (a band refined along a wall, a patch
/// touching it) and every population still has one receiver. A wall inside the box (the
/// geometry's, curved bodies aside) bounces them alike, on whichever level the path runs, as the
/// levels' flag words do (refined_cell: a virtual voxel is what the leaf around it is, and a voxel
/// in finer space is a wall where walls fill it), so the paths of both levels see one wall. A
/// path bounced off a moving wall into a coupled pull is refused (the tables carry no Ladd term).
///
/// Built on the host for the owned blocks of a rank's grid.

#include <karman/core/error.hpp>
#include <karman/core/refined/refined_grid.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/lbm/refined_geometry.hpp>
#include <karman/lbm/refined_options.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace karman::lbm {

/// Which state of which level a coupled pull reads.
enum class CoupledState : std::uint8_t {
  own,          ///< the pulling level's lattice as its step reads it
  own_start,    ///< the pulling level's state when the coarser level's step began
  coarser,      ///< the next coarser level's lattice (its state when its step began)
  finer_half,   ///< the next finer level's state after the first of its two steps
  finer_start,  ///< the next finer level's state before its two steps
};

/// One value a coupled pull reads: population i (the pull's) of `voxel` of the level `state`
/// names, as a voxel index of that level's grid (block * B^Dim + local), or its opposite
/// population where the path was bounced back off a closed side of the box (`reversed`).
struct CoupledSource {
  CoupledState state = CoupledState::own;
  index_t voxel = 0;
  bool reversed = false;
  /// With the linear explosion, the source stands for one child of `voxel` (a virtual voxel of the
  /// finer level) and reads the voxel's value plus its gradient times the child's offset: the
  /// index of that child's ExplosionStencil among the level's; -1: the voxel's value alone.
  std::int32_t stencil = -1;
  friend bool operator==(const CoupledSource& a, const CoupledSource& b) {
    return a.state == b.state && a.voxel == b.voxel && a.reversed == b.reversed && a.stencil == b.stencil;
  }
};

/// The gradient stencil of a virtual child of a voxel: the voxel's neighbours of its level along
/// each axis where both are leaves (-1 elsewhere: no gradient along that axis), and the child's
/// side of the centre along each axis.
struct ExplosionStencil {
  index_t below[3] = {-1, -1, -1};
  index_t above[3] = {-1, -1, -1};
  std::int8_t side[3] = {0, 0, 0};  ///< -1 or +1 (0 past the lattice's dimensions)
};

/// A population of a voxel whose pull is not its level's uniform pull: the mean of its sources.
struct CoupledPull {
  index_t voxel = 0;          ///< in the level's grid
  int population = 0;         ///< i
  std::uint8_t substeps = 3;  ///< bit s set: the pull of sub-step s of the coarser level's step
  std::uint32_t first = 0;    ///< its sources are sources(level)[first, first + count)
  std::uint32_t count = 0;    ///< 1 (explosion, or a pull on the own level) or 2^Dim (coalescence)
};

/// The coupled pulls of every level of a refined grid for lattice L.
template <class L, int B>
class LevelCoupling {
 public:
  static constexpr int Dim = L::D;
  static constexpr int children = 1 << Dim;

  /// The tables of the owned blocks of `grid`, built from `levels` and the walls of `geometry`.
  /// Throws karman::Error where a path reaches a block the grid does not store, or bounces off a
  /// moving wall into a coupled pull.
  template <class MemorySpace>
  LevelCoupling(const RefinedLevels<Dim>& levels, const RefinedGrid<Dim, B, MemorySpace>& grid,
                Explosion explosion = Explosion::constant, RefinedGeometry geometry = {})
      : m_explosion(explosion), m_geometry(std::move(geometry)) {
    m_pulls.resize(std::size_t(grid.levels()));
    m_sources.resize(std::size_t(grid.levels()));
    m_stencils.resize(std::size_t(grid.levels()));
    m_stencil_index.resize(std::size_t(grid.levels()));
    for (int l = 0; l < grid.levels(); ++l) {
      if (grid.empty(l)) continue;
      const auto& level = grid.level(l);
      const auto owned = level.owned_blocks();
      for (block_index_t b = owned.begin; b < owned.end; ++b) {
        if (grid.role(l, b) != RefinedBlockRole::leaf_at_jump) continue;
        const std::array<int, 3> origin = level.origin(b);
        for (int local = 0; local < RefinedGrid<Dim, B, MemorySpace>::shape_type::voxels; ++local) {
          std::array<int, 3> x{0, 0, 0};
          for (int a = 0; a < Dim; ++a)
            x[std::size_t(a)] =
                origin[std::size_t(a)] + RefinedGrid<Dim, B, MemorySpace>::shape_type::local_coordinate(local, a);
          // A wall voxel pulls nothing (the kernels skip it).
          if (m_geometry.at(l, x).kind == CellKind::solid) continue;
          const index_t voxel = index_t(b) * RefinedGrid<Dim, B, MemorySpace>::shape_type::voxels + local;
          for (int i = 0; i < L::Q; ++i) add(levels, grid, l, voxel, x, i);
        }
      }
    }
  }

  /// The coupled pulls of `level`, by voxel, then population, then sub-step.
  const std::vector<CoupledPull>& pulls(int level) const { return m_pulls.at(std::size_t(level)); }
  /// The sources the pulls of `level` index.
  const std::vector<CoupledSource>& sources(int level) const { return m_sources.at(std::size_t(level)); }
  /// The gradient stencils the sources of `level` index (linear explosion), their voxels in the
  /// grid of the level each source's state belongs to.
  const std::vector<ExplosionStencil>& stencils(int level) const { return m_stencils.at(std::size_t(level)); }

 private:
  /// `at` moved by -k c_i.
  static std::array<int, 3> back(std::array<int, 3> at, int i, int k) {
    for (int a = 0; a < Dim; ++a) at[std::size_t(a)] -= k * L::c(i, a);
    return at;
  }

  /// `at` wrapped into level l's box along periodic axes; false past a closed side.
  static bool wrap(const RefinedLevels<Dim>& levels, int l, std::array<int, 3>& at) {
    const Extents& box = levels.extents(l);
    for (int a = 0; a < Dim; ++a) {
      const int n = box.extent(a);
      int& c = at[std::size_t(a)];
      if (c >= 0 && c < n) continue;
      if (!levels.periodic(a)) return false;
      c = ((c % n) + n) % n;
    }
    return true;
  }

  /// What covers voxel `at` of level l: outside past a closed side and on a wall (refined_cell,
  /// as the levels' flag words see it), both of which bounce a path.
  LevelCover cover(const RefinedLevels<Dim>& levels, int l, std::array<int, 3> at) const {
    if (l < 0 || l >= levels.levels()) return LevelCover::outside;
    if (!wrap(levels, l, at)) return LevelCover::outside;
    if (bounces(m_geometry, refined_cell(levels, m_geometry, l, at))) return LevelCover::outside;
    return levels.cover(l, {at[0] / B, at[1] / B, Dim == 3 ? at[2] / B : 0});
  }

  template <class Grid>
  static index_t voxel_of(const RefinedLevels<Dim>& levels, const Grid& grid, int l, std::array<int, 3> at) {
    if (!wrap(levels, l, at)) throw Error("karman::lbm::LevelCoupling: a path leaves the box through a closed side");
    const block_index_t b = grid.block_at(l, {at[0] / B, at[1] / B, Dim == 3 ? at[2] / B : 0});
    if (b == absent_block) {
      throw Error("karman::lbm::LevelCoupling: level " + std::to_string(l) + " stores no block at voxel (" +
                  std::to_string(at[0]) + ", " + std::to_string(at[1]) + ", " + std::to_string(at[2]) + ")");
    }
    return index_t(b) * Grid::shape_type::voxels + Grid::shape_type::local_index(at[0] % B, at[1] % B, at[2] % B);
  }

  /// The voxel of level l + 1 whose space holds voxel `at` of level l.
  static std::array<int, 3> parent(const RefinedLevels<Dim>& levels, int l, std::array<int, 3> at) {
    wrap(levels, l, at);
    for (int a = 0; a < Dim; ++a) at[std::size_t(a)] /= 2;
    return at;
  }

  /// A path traced back one step of level l: where population `i` arriving at `at` was a step
  /// before, and which population it was then. Past a closed side it was at `at` itself, going
  /// the other way (half-way bounce-back).
  struct Trace {
    std::array<int, 3> at;
    int population;
  };
  Trace back_step(const RefinedLevels<Dim>& levels, int l, const Trace& t) {
    auto from = back(t.at, t.population, 1);
    if (cover(levels, l, from) != LevelCover::outside) return {from, t.population};
    // Past a closed side stands the wall of id 0 (refined_geometry.hpp).
    const int id = wrap(levels, l, from) ? refined_cell(levels, m_geometry, l, from).id : 0;
    if (moves(m_geometry.boundaries.values[std::size_t(id)])) m_bounced_off_moving_wall = true;
    return {t.at, L::opposite(t.population)};
  }

  /// The source of population i reaching voxel x of level l from its own level or the next
  /// coarser one in sub-step s: one step back, a leaf of level l, or, in coarser space, the
  /// coarser voxel there (first sub-step) or what stood a second step back (second sub-step).
  template <class Grid>
  CoupledSource own_or_coarser(const RefinedLevels<Dim>& levels, const Grid& grid, int pulling, int l,
                               const std::array<int, 3>& x, int i, int s) {
    const Trace t1 = back_step(levels, l, {x, i});
    const LevelCover c1 = cover(levels, l, t1.at);
    if (c1 == LevelCover::leaf) return {CoupledState::own, voxel_of(levels, grid, l, t1.at), t1.population != i};
    if (c1 != LevelCover::coarser) {
      throw Error("karman::lbm::LevelCoupling: level " + std::to_string(l) +
                  " pulls from a finer level's space two levels away (the 2:1 balance is broken) or from one "
                  "that walls fill in part (a wall at a level jump must fill whole voxels of the coarser level)");
    }
    const Trace source = s == 0 ? t1 : back_step(levels, l, t1);
    const bool reversed = source.population != i;
    if (s == 1 && cover(levels, l, source.at) == LevelCover::leaf) {
      return {CoupledState::own_start, voxel_of(levels, grid, l, source.at), reversed};
    }
    return child_of(levels, grid, pulling, l + 1,
                    {CoupledState::coarser, voxel_of(levels, grid, l + 1, parent(levels, l, source.at)), reversed},
                    source.at);
  }

  /// `whole` (a voxel of level `l`, read by level `pulling`'s table), standing for its child at
  /// `virtual_at` (coordinates of level l - 1): with the linear explosion, a stencil of the pulling
  /// level's names the child; with the constant one, the voxel's value is every child's.
  template <class Grid>
  CoupledSource child_of(const RefinedLevels<Dim>& levels, const Grid& grid, int pulling, int l, CoupledSource whole,
                         std::array<int, 3> virtual_at) {
    if (m_explosion == Explosion::constant) return whole;
    wrap(levels, l - 1, virtual_at);
    const std::array<int, 3> centre = parent(levels, l - 1, virtual_at);
    // Along an axis where both neighbours are leaves of the level (along the jump; across it the
    // constant value is already second order: lbm_refined_order_test). Next to a closed side the
    // voxel gives its value alone: the paths bounced there read it whole, as its level's
    // bounce-back does, and all of a voxel's reads must agree for its mass to be exact.
    ExplosionStencil stencil;
    for (int a = 0; a < Dim; ++a) {
      stencil.side[a] = std::int8_t((virtual_at[std::size_t(a)] & 1) ? 1 : -1);
      std::array<int, 3> below = centre, above = centre;
      below[std::size_t(a)] -= 1;
      above[std::size_t(a)] += 1;
      const LevelCover b = cover(levels, l, below), t = cover(levels, l, above);
      if (b == LevelCover::outside || t == LevelCover::outside) return whole;
      if (b != LevelCover::leaf || t != LevelCover::leaf) continue;
      stencil.below[a] = voxel_of(levels, grid, l, below);
      stencil.above[a] = voxel_of(levels, grid, l, above);
    }
    std::array<index_t, 9> key{};
    for (int a = 0; a < 3; ++a) {
      key[std::size_t(a)] = stencil.below[a];
      key[std::size_t(3 + a)] = stencil.above[a];
      key[std::size_t(6 + a)] = stencil.side[a];
    }
    auto& known = m_stencil_index[std::size_t(pulling)];
    const auto found = known.find(key);
    if (found != known.end()) {
      whole.stencil = found->second;
      return whole;
    }
    auto& list = m_stencils[std::size_t(pulling)];
    whole.stencil = std::int32_t(list.size());
    known.emplace(key, whole.stencil);
    list.push_back(stencil);
    return whole;
  }

  /// The sources of population i of voxel x of level l in sub-step s (docs/multiresolution.md).
  template <class Grid>
  std::vector<CoupledSource> sources_of(const RefinedLevels<Dim>& levels, const Grid& grid, int l,
                                        const std::array<int, 3>& x, int i, int s) {
    if (l > 0) {
      std::vector<CoupledSource> out;
      bool finer = false;
      for (int k = 0; k < children; ++k) {
        std::array<int, 3> y{0, 0, 0};
        for (int a = 0; a < Dim; ++a) y[std::size_t(a)] = 2 * x[std::size_t(a)] + ((k >> a) & 1);
        const Trace q1 = back_step(levels, l - 1, {y, i}), q2 = back_step(levels, l - 1, q1);
        if (cover(levels, l - 1, q1.at) == LevelCover::leaf) {
          out.push_back({CoupledState::finer_half, voxel_of(levels, grid, l - 1, q1.at), q1.population != i});
          finer = true;
        } else if (cover(levels, l - 1, q2.at) == LevelCover::leaf) {
          out.push_back({CoupledState::finer_start, voxel_of(levels, grid, l - 1, q2.at), q2.population != i});
          finer = true;
        } else {
          // The path stays in the space of x's level: the coarse pull, which stands for the child
          // its path ends in (the linear explosion reads that child).
          const CoupledSource whole = own_or_coarser(levels, grid, l, l, x, i, s);
          out.push_back(whole.state == CoupledState::own ? child_of(levels, grid, l, l, whole, q2.at) : whole);
        }
      }
      if (finer) return out;
    }
    return {own_or_coarser(levels, grid, l, l, x, i, s)};
  }

  template <class Grid>
  void add(const RefinedLevels<Dim>& levels, const Grid& grid, int l, index_t voxel, const std::array<int, 3>& x,
           int i) {
    m_bounced_off_moving_wall = false;
    const auto first = sources_of(levels, grid, l, x, i, 0), second = sources_of(levels, grid, l, x, i, 1);
    // One source on the own level is always x - c_i, or x itself reversed where x - c_i lies past
    // a closed side or is a wall: the uniform pull (bounce-back included, Ladd's term with it), no
    // entry.
    const bool uniform = first == second && first.size() == 1 && first[0].state == CoupledState::own;
    if (uniform) return;
    if (m_bounced_off_moving_wall) {
      throw Error("karman::lbm::LevelCoupling: level " + std::to_string(l) + " voxel (" + std::to_string(x[0]) + ", " +
                  std::to_string(x[1]) + ", " + std::to_string(x[2]) +
                  ") is next to a level jump and pulls a population bounced off a moving wall; the coupling "
                  "bounces off walls at rest only: keep the jumps a block away from moving walls");
    }
    if (first == second) {
      push(l, voxel, i, 3, first);
      return;
    }
    push(l, voxel, i, 1, first);
    push(l, voxel, i, 2, second);
  }

  void push(int l, index_t voxel, int i, std::uint8_t substeps, const std::vector<CoupledSource>& sources) {
    auto& list = m_sources[std::size_t(l)];
    m_pulls[std::size_t(l)].push_back({voxel, i, substeps, std::uint32_t(list.size()), std::uint32_t(sources.size())});
    list.insert(list.end(), sources.begin(), sources.end());
  }

  Explosion m_explosion;
  RefinedGeometry m_geometry;
  bool m_bounced_off_moving_wall = false;  ///< while tracing one pull: a path bounced off a moving wall
  std::vector<std::vector<CoupledPull>> m_pulls;
  std::vector<std::vector<CoupledSource>> m_sources;
  std::vector<std::vector<ExplosionStencil>> m_stencils;
  std::vector<std::map<std::array<index_t, 9>, std::int32_t>> m_stencil_index;  ///< a stencil's index by its content
};

}  // namespace karman::lbm
