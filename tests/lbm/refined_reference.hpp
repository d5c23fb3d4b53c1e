#pragma once
// The time step of a refined grid on the host, level by level over dense arrays: the reference
// the device stepper of issue 53 is to be compared against, and the check that the coupling of
// levels docs/multiresolution.md describes ("the coupling as virtual fine streaming") moves
// every population exactly once. BGK, AB (each level holds its post-collision populations),
// periodic boxes; walls and the block-sparse storage are the device stepper's business.
//
// Level l takes two steps a step of level l + 1 (acoustic scaling, refined_relaxation). A voxel of
// level l + 1 stands for 2^D virtual voxels of level l, each holding its populations, which move
// one level-l voxel a level-l step like any other. Every population is pulled along its own
// path of two level-l voxels a step of level l + 1:
//  - a level-l voxel x pulls population i from x - c_i; where that is coarser space, the virtual
//    voxel there holds, in the first sub-step, the coarse voxel's value (explosion: Rohde et al.
//    2006), in the second what stood at x - 2 c_i when the sub-steps began: the coarse value
//    again, or a level-l voxel's that crossed the coarse space;
//  - a level-(l + 1) voxel X pulls population i as the mean over its 2^D virtual voxels y of what
//    reaches y along y - c_i, y - 2 c_i (coalescence): a level-l voxel's value after the first
//    sub-step, or its value before the sub-steps, or (when both path points are coarse space)
//    the coarse value at X - c_i.
// Every population then has exactly one receiver, diagonal paths around the corners of a refined
// patch included, so mass and momentum are conserved to rounding; a level away from other levels
// pulls as a uniform grid does, bit for bit.

#include <karman/core/extents.hpp>
#include <karman/core/refined/refined_levels.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/level_coupling.hpp>
#include <karman/lbm/level_relaxation.hpp>
#include <karman/lbm/stream_collide.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <stdexcept>
#include <vector>

namespace karman::test {

/// Levels whose blocks are refined, on every level, where their space (in finest voxels) comes
/// within `radius` of `centre`: a round patch with corners and edges, nested across the levels.
template <int Dim>
RefinedLevels<Dim> refined_patch(const Extents& coarsest, int block_edge, int levels, std::array<double, 3> centre,
                                 double radius, std::array<bool, 3> periodic = {true, true, true}) {
  return RefinedLevels<Dim>(coarsest, block_edge, periodic, levels, [=](int level, const LevelBlockCoordinates& at) {
    const double span = double(block_edge << level);
    double d2 = 0;
    for (int a = 0; a < Dim; ++a) {
      const double lo = at[std::size_t(a)] * span, hi = lo + span;
      const double d = std::max({lo - centre[std::size_t(a)], centre[std::size_t(a)] - hi, 0.0});
      d2 += d * d;
    }
    return d2 <= radius * radius;
  });
}

template <class L>
class RefinedReference {
 public:
  static constexpr int D = L::D;

  /// The levels of `levels` (periodic along every axis), the coarsest relaxing at `coarsest`.
  RefinedReference(const RefinedLevels<D>& levels, const lbm::RelaxationParams& coarsest) : m_levels(levels) {
    for (int a = 0; a < D; ++a) {
      if (!levels.periodic(a)) throw std::invalid_argument("RefinedReference: periodic boxes only");
    }
    const int n = levels.levels();
    m_state.resize(std::size_t(n));
    for (int l = 0; l < n; ++l) {
      Level& level = m_state[std::size_t(l)];
      level.box = levels.extents(l);
      level.omega = lbm::refined_relaxation(coarsest, n - 1 - l).omega;
      level.leaf.assign(std::size_t(level.box.size()), false);
      for (index_t v = 0; v < level.box.size(); ++v) {
        level.leaf[std::size_t(v)] = levels.cover(l, block_of(coordinates(level.box, v))) == LevelCover::leaf;
      }
      level.f.assign(std::size_t(level.box.size()) * L::Q, 0.0);
    }
  }

  /// Sets population i of every leaf voxel of every level to init(level, voxel coordinates, i).
  void set(const std::function<double(int, const std::array<int, 3>&, int)>& init) {
    for (int l = 0; l < levels(); ++l) {
      Level& level = m_state[std::size_t(l)];
      for (index_t v = 0; v < level.box.size(); ++v) {
        if (!level.leaf[std::size_t(v)]) continue;
        for (int i = 0; i < L::Q; ++i) level.f[slot(v, i)] = init(l, coordinates(level.box, v), i);
      }
    }
  }

  /// One step of the coarsest level (2^(levels - 1 - l) steps of level l).
  void step() { advance(levels() - 1, 0); }

  int levels() const { return m_levels.levels(); }
  /// Whether voxel v of level l is one of its leaves.
  bool leaf(int l, index_t v) const { return m_state[std::size_t(l)].leaf[std::size_t(v)]; }
  /// The box of level l.
  const Extents& box(int l) const { return m_state[std::size_t(l)].box; }
  /// Population i of voxel v of level l.
  double population(int l, index_t v, int i) const { return m_state[std::size_t(l)].f[slot(v, i)]; }

  /// Where a pull reads from: a state of the pulling level or a neighbouring one (level_coupling.hpp)
  /// at voxel coordinates `at` of the level that state belongs to, wrapped into its box.
  struct Source {
    lbm::CoupledState state;
    std::array<int, 3> at;
    friend bool operator==(const Source& a, const Source& b) { return a.state == b.state && a.at == b.at; }
  };

  /// The sources of population i of leaf voxel x of level l in sub-step s (0 or 1) of the coarser
  /// level's step: one, or the 2^D paths of x's virtual voxels on level l - 1 (averaged).
  std::vector<Source> sources(int l, const std::array<int, 3>& x, int i, int s) const {
    if (l > 0) {
      // The 2^D virtual voxels y of x on level l - 1, in order, and what reaches each along
      // y - c_i, y - 2 c_i: a finer voxel's value after or before the first sub-step, else what
      // reaches x itself from its own level or a coarser one.
      std::vector<Source> out;
      bool finer = false;
      for (int k = 0; k < (1 << D); ++k) {
        std::array<int, 3> y{0, 0, 0};
        for (int a = 0; a < D; ++a) y[std::size_t(a)] = 2 * x[std::size_t(a)] + ((k >> a) & 1);
        const auto q1 = back(y, i, 1), q2 = back(y, i, 2);
        if (leaf_at(l - 1, q1)) {
          out.push_back({lbm::CoupledState::finer_half, wrapped(l - 1, q1)});
          finer = true;
        } else if (leaf_at(l - 1, q2)) {
          out.push_back({lbm::CoupledState::finer_start, wrapped(l - 1, q2)});
          finer = true;
        } else {
          out.push_back(from_own_or_coarser(l, x, i, s));
        }
      }
      // Away from finer voxels the pull is a uniform grid's, bit for bit.
      if (finer) return out;
    }
    return {from_own_or_coarser(l, x, i, s)};
  }

  /// The sum over every level's leaves of a voxel's `moment` (its populations' sum weighted by
  /// weight(i)) times its volume in finest voxels.
  double total(const std::function<double(int)>& weight) const {
    double sum = 0;
    for (int l = 0; l < levels(); ++l) {
      const Level& level = m_state[std::size_t(l)];
      const double volume = double(index_t(1) << (D * l));
      for (index_t v = 0; v < level.box.size(); ++v) {
        if (!level.leaf[std::size_t(v)]) continue;
        double voxel = 0;
        for (int i = 0; i < L::Q; ++i) voxel += weight(i) * level.f[slot(v, i)];
        sum += volume * voxel;
      }
    }
    return sum;
  }

 private:
  struct Level {
    Extents box;
    std::vector<bool> leaf;
    double omega = 1;
    std::vector<double> f;         ///< post-collision populations now
    std::vector<double> at_start;  ///< at the start of the coarser level's step
    std::vector<double> at_half;   ///< after the first of the two steps in a coarser level's step
  };

  static std::size_t slot(index_t v, int i) { return std::size_t(v) * L::Q + std::size_t(i); }

  static std::array<int, 3> coordinates(const Extents& box, index_t v) {
    return {box.coordinate(v, 0), box.coordinate(v, 1), box.coordinate(v, 2)};
  }

  /// The block of level l's lattice that holds voxel `at`.
  LevelBlockCoordinates block_of(const std::array<int, 3>& at) const {
    LevelBlockCoordinates b{0, 0, 0};
    for (int a = 0; a < D; ++a) b[std::size_t(a)] = at[std::size_t(a)] / m_levels.block_edge();
    return b;
  }

  /// `at` wrapped into the box of level l.
  std::array<int, 3> wrapped(int l, std::array<int, 3> at) const {
    const Extents& box = m_state[std::size_t(l)].box;
    for (int a = 0; a < D; ++a) {
      const int n = box.extent(a);
      at[std::size_t(a)] = ((at[std::size_t(a)] % n) + n) % n;
    }
    return at;
  }
  index_t index(int l, const std::array<int, 3>& at) const {
    const auto w = wrapped(l, at);
    return m_state[std::size_t(l)].box.index(w[0], w[1], w[2]);
  }
  /// The voxel of level l + 1 whose space holds voxel `at` of level l.
  std::array<int, 3> parent(int l, const std::array<int, 3>& at) const {
    auto w = wrapped(l, at);
    for (int a = 0; a < D; ++a) w[std::size_t(a)] /= 2;
    return w;
  }
  /// `at` moved by -k c_i.
  static std::array<int, 3> back(std::array<int, 3> at, int i, int k) {
    for (int a = 0; a < D; ++a) at[std::size_t(a)] -= k * L::c(i, a);
    return at;
  }
  bool leaf_at(int l, const std::array<int, 3>& at) const {
    return m_state[std::size_t(l)].leaf[std::size_t(index(l, at))];
  }

  /// Population i reaching voxel x of level l from level l itself or the next coarser level in
  /// sub-step s (0 or 1) of that level's step.
  Source from_own_or_coarser(int l, const std::array<int, 3>& x, int i, int s) const {
    const auto p1 = back(x, i, 1);
    if (leaf_at(l, p1)) return {lbm::CoupledState::own, wrapped(l, p1)};
    if (l + 1 >= levels()) throw std::logic_error("RefinedReference: a path leaves the coarsest level");
    // Coarser space: its virtual voxel at p1 holds what stood there (s = 0) or at x - 2 c_i
    // (s = 1) when the coarser level's step began.
    const auto source = s == 0 ? p1 : back(x, i, 2);
    if (s == 1 && leaf_at(l, source)) return {lbm::CoupledState::own_start, wrapped(l, source)};
    return {lbm::CoupledState::coarser, parent(l, source)};
  }

  /// The value of population i at `source`, for a pull of level l.
  double value(int l, const Source& source, int i) const {
    switch (source.state) {
      case lbm::CoupledState::own:
        return m_state[std::size_t(l)].f[slot(index(l, source.at), i)];
      case lbm::CoupledState::own_start:
        return m_state[std::size_t(l)].at_start[slot(index(l, source.at), i)];
      case lbm::CoupledState::coarser:
        return m_state[std::size_t(l + 1)].f[slot(index(l + 1, source.at), i)];
      case lbm::CoupledState::finer_half:
        return m_state[std::size_t(l - 1)].at_half[slot(index(l - 1, source.at), i)];
      case lbm::CoupledState::finer_start:
        return m_state[std::size_t(l - 1)].at_start[slot(index(l - 1, source.at), i)];
    }
    throw std::logic_error("RefinedReference: unknown state");
  }

  /// Population i pulled by leaf voxel x of level l in sub-step s of the coarser level's step.
  double pull(int l, const std::array<int, 3>& x, int i, int s) const {
    const std::vector<Source> from = sources(l, x, i, s);
    if (from.size() == 1) return value(l, from[0], i);
    double sum = 0;
    for (const Source& source : from) sum += value(l, source, i);
    return sum / double(from.size());
  }

  /// Level l's step, sub-step s of the coarser level's (0 on the coarsest level).
  void advance(int l, int s) {
    if (s == 0) m_state[std::size_t(l)].at_start = m_state[std::size_t(l)].f;
    if (l > 0) {
      advance(l - 1, 0);
      m_state[std::size_t(l - 1)].at_half = m_state[std::size_t(l - 1)].f;
      advance(l - 1, 1);
    }
    Level& level = m_state[std::size_t(l)];
    std::vector<double> next(level.f.size(), 0.0);
    for (index_t v = 0; v < level.box.size(); ++v) {
      if (!level.leaf[std::size_t(v)]) continue;
      const auto x = coordinates(level.box, v);
      double f[L::Q];
      for (int i = 0; i < L::Q; ++i) f[i] = pull(l, x, i, s);
      collide(f, level.omega);
      for (int i = 0; i < L::Q; ++i) next[slot(v, i)] = f[i];
    }
    level.f.swap(next);
  }

  /// BGK with the moments of the solver's kernels (stream_collide.hpp), so that the kernels of a
  /// refined step can equal this one bit for bit.
  static void collide(double (&f)[L::Q], double omega) {
    const double force[3] = {0, 0, 0};
    double rho, u[3];
    lbm::moments<L, double, false>(f, force, rho, u);
    lbm::CollisionRates<double> rates;
    rates.omega = omega;
    lbm::BGK::collide<L, double, false>(f, rho, u, force, rates);
  }

  RefinedLevels<D> m_levels;
  std::vector<Level> m_state;
};

}  // namespace karman::test
