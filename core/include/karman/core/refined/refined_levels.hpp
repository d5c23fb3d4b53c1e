#pragma once
/// \file refined_levels.hpp
/// Which blocks each level of a refined block-sparse grid holds (Meneghin & Mahmoud §V, the
/// multi-resolution grid of Mahmoud, Salehipour & Meneghin, IPDPS 2024). Levels are lattices of
/// blocks of B^Dim voxels, 2:1 apart: level 0 is the finest, and a block of level l covers the
/// space of 2^Dim blocks of level l - 1, its children. The coarsest level tiles the box; a block
/// that is refined hands its space to its children. What a level computes are its *leaves*, the
/// blocks it holds and does not refine; together the leaves of all levels cover the box once.
///
/// Refinement is 2:1 balanced over the 26-neighbourhood (Rohde et al. 2006 couple neighbouring
/// levels only): every block next to a refined block of its level exists on that level, so a
/// voxel's neighbours are at most one level finer or coarser. A refined block next to a leaf of
/// its level is kept as an *overlap* block, where the finer level's values are gathered for the
/// coarse neighbours that stream from it (coalescence; Neon keeps these coarse cells under the
/// fine region the same way). A leaf whose 26-neighbourhood holds a block of another level is
/// *next to a level jump*: only such blocks need the explosion and coalescence steps, the others
/// run the fused stream-collide kernel (seed 000 §V, the disaggregated schedule).
///
/// Built on the host in time and memory proportional to the blocks of the levels, not to the
/// finest box: the refinement is asked about the blocks that exist only, coarsest level first.

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/morton.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace karman {

/// Block coordinates in one level's lattice of blocks; z = 0 in 2D.
using LevelBlockCoordinates = std::array<int, 3>;

/// A block of one level: where it is, and (for a leaf) whether it touches another level.
struct LevelBlock {
  LevelBlockCoordinates at{};  ///< coordinates in the level's block lattice
  bool next_to_jump = false;   ///< a leaf with a block of another level among its 26 neighbours
};

/// The Morton key of block coordinates: the order a level lists its blocks in, and what its
/// blocks are looked up by.
inline std::uint64_t level_block_key(const LevelBlockCoordinates& at) {
  return morton_code(std::uint32_t(at[0]), std::uint32_t(at[1]), std::uint32_t(at[2]));
}

/// Wraps block coordinates `at` into `lattice` along the periodic axes of a Dim-dimensional box;
/// false when they lie past a closed side.
template <int Dim>
bool wrap_block(const Extents& lattice, const std::array<bool, 3>& periodic, LevelBlockCoordinates& at) {
  const int n[3] = {lattice.nx, lattice.ny, lattice.nz};
  for (int a = 0; a < Dim; ++a) {
    int& c = at[std::size_t(a)];
    if (c >= 0 && c < n[a]) continue;
    if (!periodic[std::size_t(a)]) return false;
    c = ((c % n[a]) + n[a]) % n[a];
  }
  return Dim == 3 || at[2] == 0;
}

/// What covers a block position of one level.
enum class LevelCover {
  outside,  ///< past a non-periodic side of the box
  coarser,  ///< the space of a leaf of a coarser level (the block does not exist on this level)
  leaf,     ///< a block this level computes
  refined,  ///< a block this level holds and hands to the finer level
};

/// The blocks of every level of a refined grid of Dim dimensions (2 or 3).
template <int Dim>
class RefinedLevels {
  static_assert(Dim == 2 || Dim == 3, "RefinedLevels: Dim must be 2 or 3");

 public:
  /// Most levels a grid may have (the five; 2^4 = 16 fine steps a coarse step).
  static constexpr int max_levels = 5;

  /// The levels of a box of `coarsest` voxels on the coarsest level (so 2^(levels - 1) times
  /// as many along each axis on the finest), blocks of `block_edge` voxels along each axis.
  /// `refine(level, at)` says whether the block at `at` of `level` (1 .. levels - 1) is split
  /// into its children; it is asked, coarsest level first, about the blocks that exist, and the
  /// 2:1 balance then refines the blocks it needs beside them. Throws karman::Error for a level
  /// count outside [1, max_levels], a block edge below 1, or a coarsest extent that blocks do
  /// not tile (a multiple of block_edge along each axis; nz = 1 in 2D).
  template <class Refine>
  RefinedLevels(const Extents& coarsest, int block_edge, const std::array<bool, 3>& periodic, int levels,
                const Refine& refine)
      : m_block_edge(block_edge), m_periodic(periodic), m_levels(std::size_t(levels > 0 ? levels : 0)) {
    check(coarsest, block_edge, levels);
    for (int l = 0; l < levels; ++l) {
      const int scale = 1 << (levels - 1 - l);
      Level& level = m_levels[std::size_t(l)];
      level.voxels = {coarsest.nx * scale, coarsest.ny * scale, Dim == 3 ? coarsest.nz * scale : 1};
      level.blocks = {level.voxels.nx / block_edge, level.voxels.ny / block_edge,
                      Dim == 3 ? level.voxels.nz / block_edge : 1};
    }
    mark_refined(refine);
    balance();
    collect();
  }

  /// Levels, the finest being 0.
  int levels() const { return int(m_levels.size()); }
  /// Voxels along each axis of a block.
  int block_edge() const { return m_block_edge; }
  /// True when axis 0 (x), 1 (y) or 2 (z) wraps around.
  bool periodic(int axis) const { return m_periodic[std::size_t(axis)]; }
  /// The box in voxels of `level`.
  const Extents& extents(int level) const { return at_level(level).voxels; }
  /// The lattice of blocks of `level`.
  const Extents& block_lattice(int level) const { return at_level(level).blocks; }

  /// The blocks `level` computes, in Morton order of their coordinates.
  const std::vector<LevelBlock>& leaves(int level) const { return at_level(level).leaves; }
  /// The refined blocks of `level` next to one of its leaves, in Morton order (none on level 0).
  const std::vector<LevelBlock>& overlaps(int level) const { return at_level(level).overlaps; }
  /// The blocks `level` refines, in Morton order (none on level 0).
  const std::vector<LevelBlock>& refined(int level) const { return at_level(level).refined_blocks; }

  /// What covers block position `at` of `level` (coordinates outside the lattice wrap along
  /// periodic axes).
  LevelCover cover(int level, LevelBlockCoordinates at) const {
    const Level& lv = at_level(level);
    if (!wrap(lv.blocks, at)) return LevelCover::outside;
    if (!exists(level, at)) return LevelCover::coarser;
    return lv.refined.count(key(at)) ? LevelCover::refined : LevelCover::leaf;
  }

  /// The level whose leaf covers voxel `finest` of the finest level (inside the box), or -1.
  int leaf_level(const std::array<int, 3>& finest) const {
    for (int l = 0; l < levels(); ++l) {
      const int span = finest_span(l);
      if (cover(l, {finest[0] / span, finest[1] / span, Dim == 3 ? finest[2] / span : 0}) == LevelCover::leaf) return l;
    }
    return -1;
  }

  /// Whether a block of another level lies among the 26 neighbours (8 in 2D) of block position
  /// `at` of `level`: the neighbour's space belongs to a coarser leaf, or its block is refined.
  bool touches_another_level(int level, const LevelBlockCoordinates& at) const {
    const Level& lv = at_level(level);
    bool touches = false;
    for_each_neighbour(lv.blocks, at, [&](const LevelBlockCoordinates& n) {
      touches = touches || !exists(level, n) || lv.refined.count(key(n)) != 0;
    });
    return touches;
  }

  /// The block of the next coarser level whose space holds block `at` of a level.
  static LevelBlockCoordinates parent(const LevelBlockCoordinates& at) {
    return {at[0] >> 1, at[1] >> 1, Dim == 3 ? at[2] >> 1 : 0};
  }

  /// The first voxel of block `at` of `level` and the voxels it spans along each axis, in
  /// voxels of the finest level: what a refinement rule given in the finest voxels tests.
  std::array<int, 3> finest_origin(int level, const LevelBlockCoordinates& at) const {
    const int span = finest_span(level);
    return {at[0] * span, at[1] * span, Dim == 3 ? at[2] * span : 0};
  }
  /// Voxels of the finest level a block of `level` spans along each axis.
  int finest_span(int level) const { return m_block_edge << level; }

  /// Blocks of every level: leaves, and overlap blocks kept for coalescence.
  std::int64_t stored_blocks() const {
    std::int64_t n = 0;
    for (const Level& l : m_levels) n += std::int64_t(l.leaves.size() + l.overlaps.size());
    return n;
  }

 private:
  struct Level {
    Extents voxels;
    Extents blocks;
    std::unordered_set<std::uint64_t> refined;  ///< keys of the blocks split into the finer level
    std::vector<LevelBlock> refined_blocks;
    std::vector<LevelBlock> leaves;
    std::vector<LevelBlock> overlaps;
  };

  static std::uint64_t key(const LevelBlockCoordinates& at) { return level_block_key(at); }

  static void check(const Extents& coarsest, int block_edge, int levels) {
    if (levels < 1 || levels > max_levels) {
      throw Error("karman::RefinedLevels: " + std::to_string(levels) + " levels; accepted: 1 to " +
                  std::to_string(max_levels));
    }
    if (block_edge < 1) {
      throw Error("karman::RefinedLevels: block edge " + std::to_string(block_edge) + "; accepted: at least 1");
    }
    const int n[3] = {coarsest.nx, coarsest.ny, coarsest.nz};
    for (int a = 0; a < 3; ++a) {
      if (a == 2 && Dim == 2) {
        if (n[2] != 1) {
          throw Error("karman::RefinedLevels: a 2D box has nz = 1; got " + std::to_string(n[2]));
        }
        continue;
      }
      if (n[a] < block_edge || n[a] % block_edge != 0) {
        throw Error(std::string("karman::RefinedLevels: the coarsest level's n") + "xyz"[a] + " = " +
                    std::to_string(n[a]) + " is not a positive multiple of the block edge " +
                    std::to_string(block_edge) + ": blocks must tile the coarsest level");
      }
    }
  }

  const Level& at_level(int level) const {
    if (level < 0 || level >= levels()) {
      throw Error("karman::RefinedLevels: level " + std::to_string(level) + "; accepted: 0 to " +
                  std::to_string(levels() - 1));
    }
    return m_levels[std::size_t(level)];
  }

  /// Wraps `at` into `blocks` along periodic axes; false when it lies past a closed side.
  bool wrap(const Extents& blocks, LevelBlockCoordinates& at) const { return wrap_block<Dim>(blocks, m_periodic, at); }

  /// Whether block `at` (inside the lattice) exists on `level`: every block of the coarsest
  /// level does, a finer one where its parent is refined.
  bool exists(int level, const LevelBlockCoordinates& at) const {
    if (level == levels() - 1) return true;
    return m_levels[std::size_t(level) + 1].refined.count(key(parent(at))) != 0;
  }

  /// Calls f(child) for the 2^Dim children of block `at`.
  template <class F>
  static void for_each_child(const LevelBlockCoordinates& at, const F& f) {
    for (int k = 0; k < (1 << Dim); ++k) {
      f(LevelBlockCoordinates{2 * at[0] + (k & 1), 2 * at[1] + ((k >> 1) & 1), Dim == 3 ? 2 * at[2] + (k >> 2) : 0});
    }
  }

  /// Calls f(neighbour) for the neighbours of `at` in its 26-neighbourhood (8 in 2D) that lie
  /// in the box, wrapped along periodic axes.
  template <class F>
  void for_each_neighbour(const Extents& blocks, const LevelBlockCoordinates& at, const F& f) const {
    const int dz = Dim == 3 ? 1 : 0;
    for (int z = -dz; z <= dz; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
          if (x == 0 && y == 0 && z == 0) continue;
          LevelBlockCoordinates n{at[0] + x, at[1] + y, at[2] + z};
          if (wrap(blocks, n)) f(n);
        }
  }

  /// Calls f(at) for every block of `level` that exists (the whole lattice of the coarsest).
  template <class F>
  void for_each_existing(int level, const F& f) const {
    if (level == levels() - 1) {
      const Extents& b = m_levels[std::size_t(level)].blocks;
      for (int z = 0; z < b.nz; ++z)
        for (int y = 0; y < b.ny; ++y)
          for (int x = 0; x < b.nx; ++x) f(LevelBlockCoordinates{x, y, z});
      return;
    }
    // at(): GCC 12 cannot see that the coarsest level returned above, and warns of the index.
    for (const std::uint64_t k : m_levels.at(std::size_t(level) + 1).refined) for_each_child(decode(k), f);
  }

  static LevelBlockCoordinates decode(std::uint64_t k) {
    const auto gather = [](std::uint64_t v) {
      v &= 0x1249249249249249ULL;
      v = (v | v >> 2) & 0x10c30c30c30c30c3ULL;
      v = (v | v >> 4) & 0x100f00f00f00f00fULL;
      v = (v | v >> 8) & 0x1f0000ff0000ffULL;
      v = (v | v >> 16) & 0x1f00000000ffffULL;
      v = (v | v >> 32) & 0x1fffffULL;
      return int(v);
    };
    return {gather(k), gather(k >> 1), gather(k >> 2)};
  }

  /// The rule's refinement, coarsest level first: each level's rule is asked about the blocks
  /// the level above refined.
  template <class Refine>
  void mark_refined(const Refine& refine) {
    for (int l = levels() - 1; l >= 1; --l) {
      std::unordered_set<std::uint64_t>& refined = m_levels[std::size_t(l)].refined;
      for_each_existing(l, [&](const LevelBlockCoordinates& at) {
        if (refine(l, at)) refined.insert(key(at));
      });
    }
  }

  /// 2:1 balance: the 26 neighbours of a refined block of level l exist on level l, so their
  /// parents are refined on level l + 1. Finest first: what this adds to level l + 1 is then
  /// balanced in turn, and a block it brings into existence on level l is a leaf, which needs
  /// nothing.
  void balance() {
    for (int l = 1; l + 1 < levels(); ++l) {
      const Level& level = m_levels[std::size_t(l)];
      std::unordered_set<std::uint64_t>& above = m_levels[std::size_t(l) + 1].refined;
      for (const std::uint64_t k : level.refined) {
        for_each_neighbour(level.blocks, decode(k),
                           [&](const LevelBlockCoordinates& n) { above.insert(key(parent(n))); });
      }
    }
  }

  /// Leaves, overlap and refined blocks of every level, sorted by Morton key.
  void collect() {
    const auto by_key = [](const LevelBlock& a, const LevelBlock& b) { return key(a.at) < key(b.at); };
    for (int l = 0; l < levels(); ++l) {
      Level& level = m_levels[std::size_t(l)];
      for_each_existing(l, [&](const LevelBlockCoordinates& at) {
        if (level.refined.count(key(at))) return;
        level.leaves.push_back({at, touches_another_level(l, at)});
      });
      for (const std::uint64_t k : level.refined) {
        const LevelBlockCoordinates at = decode(k);
        level.refined_blocks.push_back({at, false});
        bool next_to_leaf = false;
        for_each_neighbour(level.blocks, at, [&](const LevelBlockCoordinates& n) {
          next_to_leaf = next_to_leaf || (exists(l, n) && level.refined.count(key(n)) == 0);
        });
        if (next_to_leaf) level.overlaps.push_back({at, false});
      }
      std::sort(level.leaves.begin(), level.leaves.end(), by_key);
      std::sort(level.overlaps.begin(), level.overlaps.end(), by_key);
      std::sort(level.refined_blocks.begin(), level.refined_blocks.end(), by_key);
    }
  }

  int m_block_edge;
  std::array<bool, 3> m_periodic;
  std::vector<Level> m_levels;
};

}  // namespace karman
