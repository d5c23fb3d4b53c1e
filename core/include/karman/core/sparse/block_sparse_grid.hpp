#pragma once
/// \file block_sparse_grid.hpp
/// A block-sparse grid (Meneghin & Mahmoud §IV, §VI-B): a box tiled by B^Dim voxel blocks of
/// which only those holding at least one active voxel are stored, each with a voxel mask and a
/// row of the neighbour-block table. Blocks are classified boundary / non-boundary and either
/// stored in two contiguous runs (Table II "Disag - Mem") or marked by a bit per block
/// (Table II "Disag - Bitmask"); both carry the bit. A builder that lists its blocks may also
/// give each a kind (up to max_kinds), each kind a contiguous run launched apart.
///
/// Voxel indices are block * B^Dim + local, so fields on the grid are ordinary Fields over
/// `group_table()` and a kernel reaches neighbours through BlockNeighbours::at exactly as it
/// does through Neighbours<Dim>::at on a dense box.
///
/// A multi-resolution grid (Meneghin & Mahmoud §V) is a stack of these, one per level, each
/// over its own box (level l has voxels 2^l times the finest); cross-level tables (parent and
/// child blocks) sit beside the levels, and each block's role on its level (away from a
/// resolution jump, at one, or an overlap block) is its kind, so the fused-kernel blocks of
/// each level are a run apart from its jump blocks (refined_grid.hpp).

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>
#include <karman/core/layout_csoa.hpp>
#include <karman/core/morton.hpp>
#include <karman/core/sparse/block_grid_view.hpp>
#include <karman/core/sparse/block_shape.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

namespace karman {

/// How boundary and non-boundary blocks are told apart (Meneghin & Mahmoud §IV-B, Table II).
enum class BlockGrouping {
  memory,  ///< boundary blocks stored first, contiguously; each kernel spans only its own blocks
  bitmask  ///< blocks in space-filling-curve order; both kernels span all blocks and test a bit
};

/// Name of a grouping as used in options and messages.
constexpr std::string_view name(BlockGrouping g) { return g == BlockGrouping::memory ? "memory" : "bitmask"; }

/// Which blocks a launch covers.
enum class BlockSet {
  boundary,      ///< blocks holding a boundary voxel, an inactive voxel, or next to one
  non_boundary,  ///< blocks whose voxels and stencils are all active and not boundary
  all            ///< every stored block
};

/// Name of a block set as used in kernel labels and messages.
constexpr std::string_view name(BlockSet s) {
  return s == BlockSet::boundary ? "boundary" : (s == BlockSet::non_boundary ? "non_boundary" : "all");
}

/// A half-open range [begin, end) of stored blocks.
struct BlockRange {
  block_index_t begin = 0;  ///< first block
  block_index_t end = 0;    ///< one past the last block

  /// Number of blocks in the range.
  block_index_t size() const { return end - begin; }
  /// True when the range holds no block.
  bool empty() const { return end <= begin; }
};

namespace detail {
/// Z-order (Morton) key of block coordinates: blocks close in space get close keys, the
/// space-filling-curve order Meneghin & Mahmoud §IV assume for block storage.
inline std::uint64_t morton_key(int bx, int by, int bz) {
  return morton_code(std::uint32_t(bx), std::uint32_t(by), std::uint32_t(bz));
}
}  // namespace detail

/// The block planes one of several ranks owns along a block-sparse grid's slab axis (z in 3D,
/// y in 2D): what a SlabPartition of BlockSparseGrid::block_lattice(box) gives the rank, each
/// of its planes one plane of blocks (Meneghin & Mahmoud §VI-A's slabs, cut between blocks).
struct OwnedBlockPlanes {
  int begin = 0;  ///< first owned block plane
  int count = 0;  ///< owned block planes
};

/// Block-sparse grid of B^Dim voxel blocks over a box, its tables on MemorySpace.
///
/// A block is a *boundary* block when one of its active voxels is a boundary voxel (the
/// caller's classifier: walls, inlets, outlets...) or has an inactive voxel in its stencil
/// (inside the block, in a block not stored, or outside a non-periodic box). A non-boundary
/// block therefore has every voxel active and every stencil neighbour active: its kernel needs
/// neither a mask test nor any boundary code (Meneghin & Mahmoud §IV-B: r_nb registers).
///
/// Shared by several ranks, a grid holds the rank's block planes and one halo block plane on
/// each side (copies of the neighbours' blocks there), in five groups in memory order:
/// halo | shared | interior | shared | halo, as a SlabPartition (Meneghin & Mahmoud §III, §IV:
/// shared blocks stored contiguously, so each neighbour gets one message). Halo and shared
/// groups are in Z-order of the blocks' global coordinates, so a rank's shared group and its
/// neighbour's halo group facing it hold the same blocks in the same order. Shared blocks run
/// the boundary kernel (they are computed apart from the interior, which the exchange overlaps);
/// the interior group is split into boundary and non-boundary blocks as on one rank.
template <int Dim, int B = 4, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockSparseGrid {
  static_assert(Kokkos::is_memory_space<MemorySpace>::value,
                "karman::BlockSparseGrid: MemorySpace must be a Kokkos memory space");

 public:
  using shape_type = BlockShape<Dim, B>;
  using mask_type = typename shape_type::mask_type;
  using memory_space = MemorySpace;
  using execution_space = typename MemorySpace::execution_space;
  /// What kernels capture.
  using view_type = BlockGridView<Dim, B, MemorySpace>;
  /// SoA inside each block: the components of a block's B^Dim voxels are one contiguous chunk,
  /// each component a run of B^Dim values (the default layout of fields on this grid).
  using block_layout = CSoA<shape_type::voxels>;

  /// Voxels along each axis of a block.
  static constexpr int block_edge = B;
  /// Voxels in a block.
  static constexpr int block_voxels = shape_type::voxels;

  /// Builds the grid on the host and copies its tables to MemorySpace.
  /// `active(x, y, z)` says whether a voxel of `extents` is computed (fluid, or a wall voxel a
  /// kernel writes to); `boundary(x, y, z)`, asked for active voxels only, whether it needs
  /// boundary code (a wall, inlet or outlet voxel). Periodic axes need extents that are
  /// multiples of B, so that the wrap lands on a block side. Throws karman::Error for bad
  /// extents or a box without any active voxel.
  template <class Active, class Boundary>
  BlockSparseGrid(const std::string& label, const Extents& extents, const std::array<bool, 3>& periodic,
                  const Active& active, const Boundary& boundary, BlockGrouping grouping = BlockGrouping::memory)
      : BlockSparseGrid(label, extents, periodic, OwnedBlockPlanes{0, block_lattice(extents).extent(Dim - 1)}, active,
                        boundary, grouping) {}

  /// The part of that grid one rank holds: the `owned` block planes (at least 2 when they are
  /// not all of them) and a halo block plane on each side. `active` and `boundary` take
  /// coordinates in the whole box, as above.
  template <class Active, class Boundary>
  BlockSparseGrid(const std::string& label, const Extents& extents, const std::array<bool, 3>& periodic,
                  OwnedBlockPlanes owned, const Active& active, const Boundary& boundary,
                  BlockGrouping grouping = BlockGrouping::memory)
      : m_extents(extents), m_periodic(periodic), m_grouping(grouping) {
    set_window(owned);
    build(label, find_blocks(active), boundary);
  }

  /// Kinds of blocks a builder may tell apart (ActiveBlock::kind).
  static constexpr int max_kinds = 4;

  /// An active block as a builder that knows its blocks gives it: its coordinates in the box's
  /// block lattice (block_lattice()), the mask of its active voxels (BlockShape's bit order) and
  /// its kind, a class of the builder's that kernels launch apart (a refined level's blocks away
  /// from a level jump, at one, and overlap blocks: Meneghin & Mahmoud §V's memory grouping).
  struct ActiveBlock {
    std::array<int, 3> at{};  ///< block coordinates; z = 0 in 2D
    mask_type mask = 0;       ///< its active voxels; voxels past the box's side must be clear
    int kind = 0;             ///< in [0, max_kinds)
  };

  /// The grid of the blocks `blocks` lists, in any order (a block listed twice takes the union
  /// of its masks and keeps its kind), built in time and memory proportional to the blocks this
  /// rank stores, not to the box: blocks outside the rank's planes and their halo planes are
  /// passed over, and `boundary` is asked for the voxels of full blocks only (see the class
  /// comment). So a level of a refined grid or a large image, whose blocks come from their
  /// geometry (shapes per block, an image read by slabs), needs no pass over the whole box.
  /// Builds the same grid as the voxel-function constructors for the same active voxels (of
  /// kind 0). Throws karman::Error for a block outside the lattice, a mask with voxels past the
  /// box's side, a kind out of range or a block listed with two kinds.
  template <class Boundary>
  BlockSparseGrid(const std::string& label, const Extents& extents, const std::array<bool, 3>& periodic,
                  OwnedBlockPlanes owned, const std::vector<ActiveBlock>& blocks, const Boundary& boundary,
                  BlockGrouping grouping = BlockGrouping::memory)
      : m_extents(extents), m_periodic(periodic), m_grouping(grouping) {
    set_window(owned);
    build(label, listed_blocks(blocks), boundary);
  }

  /// Axis along which ranks divide the block planes: z in 3D, y in 2D.
  static constexpr int slab_axis = Dim - 1;

  /// Most entries a table over the lattice may hold per stored block: past it (a virtual box
  /// with few blocks, a refined grid's level) the stored blocks' sorted keys are searched
  /// instead, so the look-up costs at most 64 bytes a stored block either way, and a grid
  /// dense enough for the table links its blocks in one look-up each, not a search (27 a block:
  /// 5 s for 2 million blocks).
  static constexpr index_t max_table_entries_per_block = 16;

  /// The lattice of blocks tiling `box`: blocks along each axis (a partial block at a
  /// non-periodic end counts). Its planes along slab_axis are what ranks divide.
  static Extents block_lattice(const Extents& box) {
    return {(box.nx + B - 1) / B, (box.ny + B - 1) / B, Dim == 3 ? (box.nz + B - 1) / B : 1};
  }

  /// The box the blocks tile.
  const Extents& extents() const { return m_extents; }
  /// True when axis 0 (x), 1 (y) or 2 (z) wraps around.
  bool periodic(int axis) const { return m_periodic[axis]; }
  /// How boundary blocks are told apart.
  BlockGrouping grouping() const { return m_grouping; }
  /// Stored blocks, halo blocks included.
  block_index_t block_count() const { return block_index_t(m_masks.extent(0)); }
  /// Owned blocks that run the boundary kernel (shared blocks included).
  block_index_t boundary_block_count() const { return m_boundary_blocks; }
  /// Voxels of the stored blocks, inactive and halo ones included: the voxel count fields hold.
  index_t voxel_count() const { return index_t(block_count()) * block_voxels; }
  /// Active voxels of the owned blocks.
  index_t active_voxel_count() const { return m_active_voxels; }
  /// True when ranks share the box (halo and shared groups exist).
  bool divided() const { return m_divided; }
  /// Groups for fields on this grid: on one rank every stored voxel is interior; on several,
  /// halo | shared | interior | shared | halo along slab_axis (the group order of a
  /// SlabPartition, so its halo plans name these groups).
  GroupTable group_table() const {
    if (!m_divided) return GroupTable::single(voxel_count());
    const NeighbourStep lower = NeighbourStep::along(slab_axis, -1), upper = NeighbourStep::along(slab_axis, +1);
    const GroupRole roles[] = {GroupRole::halo, GroupRole::shared, GroupRole::interior, GroupRole::shared,
                               GroupRole::halo};
    const NeighbourStep towards[] = {lower, lower, NeighbourStep{}, upper, upper};
    GroupTable table;
    for (int g = 0; g < 5; ++g) table.add(roles[g], towards[g], index_t(group_blocks(g).size()) * block_voxels);
    return table;
  }
  /// The stored blocks of group g of group_table().
  BlockRange group_blocks(int g) const { return {m_group_begin[std::size_t(g)], m_group_begin[std::size_t(g) + 1]}; }
  /// The blocks of kind `kind` in group g: every group holds a run of each kind, in kind order.
  /// Throws karman::Error for a kind out of [0, max_kinds).
  BlockRange group_blocks(int g, int kind) const {
    require_in_range("karman::BlockSparseGrid::group_blocks", "kind", kind, 0, max_kinds - 1);
    const auto& runs = m_kind_begin[std::size_t(g)];
    return {runs[std::size_t(kind)], runs[std::size_t(kind) + 1]};
  }
  /// The group computed apart from the exchange: the only group on one rank.
  int interior_group() const { return m_divided ? 2 : 0; }
  /// The blocks this rank computes: all on one rank, the shared and interior groups on several.
  BlockRange owned_blocks() const {
    return m_divided ? BlockRange{m_group_begin[1], m_group_begin[4]} : BlockRange{0, block_count()};
  }

  /// Kinds of the stored blocks: one more than the largest ActiveBlock::kind given (1 for the
  /// voxel-function constructors).
  int kinds() const { return m_kinds; }

  /// The blocks a kernel over `set` spans: `all` the owned blocks; `boundary` and
  /// `non_boundary` those of the interior group (see span(BlockSet, int)) on a grid of one kind.
  /// Shared blocks are launched by group (group_blocks). Throws karman::Error for `boundary` or
  /// `non_boundary` on a grid of several kinds: they are launched kind by kind.
  BlockRange span(BlockSet set) const {
    if (set == BlockSet::all) return owned_blocks();
    if (m_kinds != 1) {
      throw Error("karman::BlockSparseGrid: the grid holds " + std::to_string(m_kinds) + " kinds of blocks; span(" +
                  std::string(name(set)) + ") needs a kind");
    }
    return span(set, 0);
  }

  /// The interior blocks of kind `kind` a kernel over `set` spans. The interior group holds a
  /// contiguous run of each kind, in kind order. Inside it, with memory grouping, `boundary` and
  /// `non_boundary` are each a contiguous run (boundary blocks first); with bitmask grouping
  /// both are the whole run of the kind, the kernel testing the bit (Table II, "# Blocks");
  /// `all` is the whole run. Throws karman::Error for a kind out of [0, max_kinds).
  BlockRange span(BlockSet set, int kind) const {
    const BlockRange run = group_blocks(interior_group(), kind);
    if (set == BlockSet::all || m_grouping == BlockGrouping::bitmask) return run;
    const block_index_t split = m_kind_split[std::size_t(kind)];
    return set == BlockSet::boundary ? BlockRange{run.begin, split} : BlockRange{split, run.end};
  }

  /// Kind of block b (ActiveBlock::kind; host copy).
  int kind(block_index_t b) const { return m_block_kinds[std::size_t(b)]; }

  /// Voxel mask of block b (host copy).
  mask_type mask(block_index_t b) const { return m_masks(b); }
  /// True when block b is a boundary block (host copy of the bit).
  bool boundary(block_index_t b) const { return (m_boundary_bits(b / 32) >> (b % 32)) & 1u; }
  /// Coordinates of block b's voxel (0, 0, 0) in the box.
  std::array<int, 3> origin(block_index_t b) const {
    const std::size_t k = std::size_t(b) * 3;
    return {m_origins(k), m_origins(k + 1), m_origins(k + 2)};
  }
  /// Block at direction `dir` (BlockShape::direction) of block b, or absent_block.
  block_index_t neighbour(block_index_t b, int dir) const {
    return m_neighbours(std::size_t(b) * shape_type::directions + std::size_t(dir));
  }
  /// Voxel index of the owned voxel at (x, y, z) of the box, or absent_voxel when its block is
  /// not stored, belongs to another rank, or the coordinates are outside the box (host side).
  index_t find(int x, int y, int z) const {
    if (x < 0 || y < 0 || z < 0 || x >= m_extents.nx || y >= m_extents.ny || z >= m_extents.nz) return absent_voxel;
    std::array<int, 3> bc = {x / B, y / B, z / B};
    if (m_divided) {
      bc[slab_axis] -= m_window_begin;
      if (bc[slab_axis] < 1 || bc[slab_axis] > m_blocks_per_axis[slab_axis] - 2) return absent_voxel;
    }
    const block_index_t b = stored_block(dense_block(bc[0], bc[1], bc[2]));
    if (b == absent_block) return absent_voxel;
    return view_type::voxel_of(b, shape_type::local_index(x % B, y % B, Dim == 3 ? z % B : 0));
  }

  /// The device tables, for kernels.
  const view_type& view() const { return m_view; }

  /// Bytes of the grid's host tables: masks, bits, origins, neighbour rows and what find()
  /// looks blocks up in, all in proportion to the stored blocks. A device holds the same but the
  /// look-up; on a host backend the kernels read the host tables themselves.
  std::size_t host_bytes() const {
    return m_masks.span() * sizeof(mask_type) + m_boundary_bits.span() * sizeof(std::uint32_t) +
           m_origins.span() * sizeof(int) + m_neighbours.span() * sizeof(block_index_t) +
           m_block_at.capacity() * sizeof(block_index_t) + m_keys.capacity() * sizeof(index_t) +
           m_key_blocks.capacity() * sizeof(block_index_t) + m_block_kinds.capacity();
  }

 private:
  /// A block as found, before the final ordering.
  struct Provisional {
    index_t dense = 0;  ///< index in the lattice of this rank's block planes, x fastest
    mask_type mask = 0;
    int kind = 0;
  };

  /// Checks the box and the owned planes and sets this rank's lattice of blocks: every block
  /// plane on one rank, the owned ones and a halo plane on each side on several.
  void set_window(OwnedBlockPlanes owned) {
    check_box(m_extents, m_periodic);
    if constexpr (Dim == 2) m_periodic[2] = false;
    const Extents lattice = block_lattice(m_extents);
    m_global_planes = lattice.extent(slab_axis);
    require_in_range("karman::BlockSparseGrid", "first owned block plane", owned.begin, 0, m_global_planes - 1);
    require_in_range("karman::BlockSparseGrid", "owned block planes", owned.count, 1, m_global_planes - owned.begin);
    m_divided = owned.count < m_global_planes;
    if (m_divided) {
      require_in_range("karman::BlockSparseGrid (one of several ranks)", "owned block planes", owned.count, 2,
                       m_global_planes);
    }
    for (int a = 0; a < 3; ++a) m_blocks_per_axis[a] = lattice.extent(a);
    if (m_divided) {
      m_window_begin = owned.begin - 1;
      m_blocks_per_axis[slab_axis] = owned.count + 2;
    }
  }

  /// Plane of this rank's lattice holding block plane g of the box, or -1 where none does
  /// (the inverse of global_plane(); the window never holds a plane twice, since every other
  /// rank owns at least 2 planes).
  int window_plane(int g) const {
    if (!m_divided) return g;
    int w = g - m_window_begin;
    if (m_periodic[slab_axis]) w = (w + m_global_planes) % m_global_planes;
    return w >= 0 && w < m_blocks_per_axis[slab_axis] ? w : -1;
  }

  /// The listed blocks of this rank's lattice, sorted by lattice index, masks of a block listed
  /// twice joined.
  std::vector<Provisional> listed_blocks(const std::vector<ActiveBlock>& blocks) const {
    const Extents lattice = block_lattice(m_extents);
    std::vector<Provisional> found;
    for (const ActiveBlock& b : blocks) {
      for (int a = 0; a < 3; ++a) {
        const int n = a < Dim ? lattice.extent(a) : 1;
        if (b.at[std::size_t(a)] < 0 || b.at[std::size_t(a)] >= n) {
          throw Error("karman::BlockSparseGrid: block (" + std::to_string(b.at[0]) + ", " + std::to_string(b.at[1]) +
                      ", " + std::to_string(b.at[2]) + ") is outside the " + std::to_string(lattice.nx) + "x" +
                      std::to_string(lattice.ny) + "x" + std::to_string(lattice.nz) + " lattice of blocks");
        }
      }
      require_in_range("karman::BlockSparseGrid", "block kind", b.kind, 0, max_kinds - 1);
      if (b.mask & ~inside_mask(b.at)) {
        throw Error("karman::BlockSparseGrid: the mask of block (" + std::to_string(b.at[0]) + ", " +
                    std::to_string(b.at[1]) + ", " + std::to_string(b.at[2]) +
                    ") has active voxels past the box's side");
      }
      const int w = window_plane(b.at[std::size_t(slab_axis)]);
      if (w < 0 || b.mask == 0) continue;
      std::array<int, 3> bc = b.at;
      bc[std::size_t(slab_axis)] = w;
      found.push_back({dense_block(bc[0], bc[1], bc[2]), b.mask, b.kind});
    }
    std::sort(found.begin(), found.end(), [](const Provisional& a, const Provisional& b) { return a.dense < b.dense; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (kept > 0 && found[kept - 1].dense == found[i].dense) {
        if (found[kept - 1].kind != found[i].kind) {
          const std::array<int, 3> at = global_block(lattice_coordinates(found[i].dense));
          throw Error("karman::BlockSparseGrid: block (" + std::to_string(at[0]) + ", " + std::to_string(at[1]) + ", " +
                      std::to_string(at[2]) + ") is listed with kinds " + std::to_string(found[kept - 1].kind) +
                      " and " + std::to_string(found[i].kind));
        }
        found[kept - 1].mask |= found[i].mask;
      } else {
        found[kept++] = found[i];
      }
    }
    found.resize(kept);
    return found;
  }

  /// The voxels of the block at block coordinates `at` of the box that lie inside it.
  mask_type inside_mask(const std::array<int, 3>& at) const {
    mask_type m = 0;
    for (int l = 0; l < block_voxels; ++l) {
      bool inside = true;
      for (int a = 0; a < Dim; ++a)
        inside = inside && at[std::size_t(a)] * B + shape_type::local_coordinate(l, a) < m_extents.extent(a);
      if (inside) m |= mask_type(1) << l;
    }
    return m;
  }

  /// Stored block (discovery order before build() renumbers, final after) at lattice index
  /// `dense`, or absent_block: one look-up in the lattice's table where there is one, else a
  /// binary search of the stored blocks' sorted keys (index_stored_blocks()).
  block_index_t stored_block(index_t dense) const {
    if (!m_block_at.empty()) return m_block_at[std::size_t(dense)];
    const auto it = std::lower_bound(m_keys.begin(), m_keys.end(), dense);
    return it != m_keys.end() && *it == dense ? m_key_blocks[std::size_t(it - m_keys.begin())] : absent_block;
  }

  /// Fills what stored_block() reads for the found blocks (sorted by lattice index), numbered in
  /// discovery order.
  void index_stored_blocks(const std::vector<Provisional>& found) {
    const std::size_t n = found.size();
    const index_t lattice_blocks = index_t(m_blocks_per_axis[0]) * m_blocks_per_axis[1] * m_blocks_per_axis[2];
    m_block_at.clear();
    m_keys.clear();
    m_key_blocks.clear();
    if (lattice_blocks <= max_table_entries_per_block * index_t(n)) {
      m_block_at.assign(std::size_t(lattice_blocks), absent_block);
      for (std::size_t p = 0; p < n; ++p) m_block_at[std::size_t(found[p].dense)] = block_index_t(p);
      return;
    }
    m_keys.resize(n);
    m_key_blocks.resize(n);
    for (std::size_t p = 0; p < n; ++p) {
      m_keys[p] = found[p].dense;
      m_key_blocks[p] = block_index_t(p);
    }
  }

  /// Block plane of the box at plane w of this rank's lattice along slab_axis, or -1 where
  /// there is none (past a non-periodic end).
  int global_plane(int w) const {
    int g = m_window_begin + w;
    if (g < 0 || g >= m_global_planes) {
      if (!m_periodic[slab_axis]) return -1;
      g = (g + m_global_planes) % m_global_planes;
    }
    return g;
  }

  /// Block coordinates in the box of block coordinates `bc` of this rank's lattice.
  std::array<int, 3> global_block(std::array<int, 3> bc) const {
    bc[slab_axis] = global_plane(bc[slab_axis]);
    return bc;
  }

  /// Group of the blocks of plane w of this rank's lattice (group_table()).
  int group_of_plane(int w) const {
    if (!m_divided) return 0;
    const int last = m_blocks_per_axis[slab_axis] - 1;
    return w == 0 ? 0 : w == 1 ? 1 : w == last - 1 ? 3 : w == last ? 4 : 2;
  }

  static void check_box(const Extents& extents, const std::array<bool, 3>& periodic) {
    validate(extents, "karman::BlockSparseGrid");
    if constexpr (Dim == 2) {
      require_in_range("karman::BlockSparseGrid (2D)", "nz", extents.nz, 1, 1);
    } else {
      require_in_range("karman::BlockSparseGrid (3D)", "nz", extents.nz, 2, 1 << 20);
    }
    for (int a = 0; a < Dim; ++a) {
      if (periodic[a] && extents.extent(a) % B != 0) {
        throw Error(std::string("karman::BlockSparseGrid: periodic axis ") + "xyz"[a] + " has " +
                    std::to_string(extents.extent(a)) + " voxels, not a multiple of the block edge B = " +
                    std::to_string(B) + " (a periodic wrap must land on a block side)");
      }
    }
  }

  index_t dense_block(int bx, int by, int bz) const {
    return bx + index_t(m_blocks_per_axis[0]) * (by + index_t(m_blocks_per_axis[1]) * bz);
  }

  /// Every block of the lattice holding at least one active voxel, with its mask.
  template <class Active>
  std::vector<Provisional> find_blocks(const Active& active) {
    std::vector<Provisional> found;
    const int nbx = m_blocks_per_axis[0], nby = m_blocks_per_axis[1], nbz = m_blocks_per_axis[2];
    for (int bz = 0; bz < nbz; ++bz) {
      for (int by = 0; by < nby; ++by) {
        for (int bx = 0; bx < nbx; ++bx) {
          const std::array<int, 3> g = global_block({bx, by, bz});
          if (g[slab_axis] < 0) continue;
          mask_type m = 0;
          for (int l = 0; l < block_voxels; ++l) {
            const int x = g[0] * B + shape_type::local_coordinate(l, 0);
            const int y = g[1] * B + shape_type::local_coordinate(l, 1);
            const int z = Dim == 3 ? g[2] * B + shape_type::local_coordinate(l, 2) : 0;
            if (x < m_extents.nx && y < m_extents.ny && z < m_extents.nz && active(x, y, z)) m |= mask_type(1) << l;
          }
          if (m != 0) found.push_back({dense_block(bx, by, bz), m, 0});
        }
      }
    }
    return found;
  }

  /// Classifies, orders and links the found blocks, then fills the host and device tables.
  /// `found` is sorted by lattice index. Throws karman::Error when it is empty on one rank.
  template <class Boundary>
  void build(const std::string& label, const std::vector<Provisional>& found, const Boundary& boundary_voxel) {
    if (found.empty() && !m_divided) {
      throw Error("karman::BlockSparseGrid: no active voxel in the " + std::to_string(m_extents.nx) + "x" +
                  std::to_string(m_extents.ny) + "x" + std::to_string(m_extents.nz) + " box (at least 1 needed)");
    }
    if (found.size() > std::size_t(std::numeric_limits<block_index_t>::max())) {
      throw Error("karman::BlockSparseGrid: " + std::to_string(found.size()) + " blocks to store, more than the " +
                  std::to_string(std::numeric_limits<block_index_t>::max()) + " a 32-bit block index addresses");
    }
    const std::size_t n = found.size();
    constexpr int dirs = shape_type::directions;
    index_stored_blocks(found);

    // Classification in discovery order, renumbered below. Shared blocks run the boundary
    // kernel; halo blocks run none. Neighbour rows are looked up here and again once the final
    // order is known, rather than kept: a row is 3^Dim indices a block, most of the tables.
    std::vector<std::array<int, 3>> coords(n);
    std::vector<int> group(n);
    std::vector<char> is_boundary(n);
    std::array<block_index_t, dirs> row{};
    for (std::size_t p = 0; p < n; ++p) {
      const std::array<int, 3> bc = lattice_coordinates(found[p].dense);
      coords[p] = global_block(bc);
      group[p] = group_of_plane(bc[slab_axis]);
      const GroupRole role =
          m_divided ? (group[p] == 2 ? GroupRole::interior : (group[p] % 4 == 0 ? GroupRole::halo : GroupRole::shared))
                    : GroupRole::interior;
      if (role == GroupRole::interior) {
        for (int dir = 0; dir < dirs; ++dir) row[std::size_t(dir)] = linked_block(bc, dir);
      }
      is_boundary[p] = role == GroupRole::shared ||
                       (role == GroupRole::interior && classify(found, p, row.data(), coords[p], boundary_voxel));
    }

    // Groups in memory order; inside each group a run of each kind in kind order; inside a kind's
    // run of the interior group memory grouping puts boundary blocks first; Z-order of the global
    // block coordinates inside each run. A block's kind is the builder's, the same on every rank,
    // so a shared group and the neighbour's halo group facing it list the same blocks in the
    // same order.
    std::vector<std::uint64_t> keys(n);
    for (std::size_t p = 0; p < n; ++p) keys[p] = detail::morton_key(coords[p][0], coords[p][1], coords[p][2]);
    std::vector<block_index_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const int interior = interior_group();
    const bool grouped = m_grouping == BlockGrouping::memory;
    std::sort(order.begin(), order.end(), [&](block_index_t a, block_index_t b) {
      const std::size_t i = std::size_t(a), j = std::size_t(b);
      if (group[i] != group[j]) return group[i] < group[j];
      if (found[i].kind != found[j].kind) return found[i].kind < found[j].kind;
      if (group[i] == interior) {
        const bool ga = grouped && !is_boundary[i], gb = grouped && !is_boundary[j];
        if (ga != gb) return gb;
      }
      return keys[i] < keys[j];
    });
    m_group_begin.fill(block_index_t(n));
    for (std::size_t k = n; k-- > 0;) m_group_begin[std::size_t(group[std::size_t(order[k])])] = block_index_t(k);
    for (int g = 4; g >= 0; --g)
      m_group_begin[std::size_t(g)] = std::min(m_group_begin[std::size_t(g)], m_group_begin[std::size_t(g) + 1]);
    std::vector<block_index_t> final_index(n);
    for (std::size_t k = 0; k < n; ++k) final_index[std::size_t(order[k])] = block_index_t(k);

    m_masks = host_array<mask_type>(label + "::masks", n);
    m_origins = host_array<int>(label + "::origins", 3 * n);
    m_neighbours = host_array<block_index_t>(label + "::neighbours", n * dirs);
    m_boundary_bits = host_array<std::uint32_t>(label + "::boundary_bits", (n + 31) / 32);
    m_block_kinds.assign(n, 0);
    m_boundary_blocks = 0;
    m_active_voxels = 0;
    m_kinds = 1;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t p = std::size_t(order[k]);
      m_masks(k) = found[p].mask;
      m_block_kinds[k] = std::uint8_t(found[p].kind);
      m_kinds = std::max(m_kinds, found[p].kind + 1);
      if (!m_divided || group[p] % 4 != 0) m_active_voxels += popcount(found[p].mask);
      for (int a = 0; a < 3; ++a) m_origins(3 * k + std::size_t(a)) = coords[p][std::size_t(a)] * B;
      const std::array<int, 3> bc = lattice_coordinates(found[p].dense);
      for (int dir = 0; dir < dirs; ++dir) {
        const block_index_t link = linked_block(bc, dir);
        m_neighbours(k * dirs + std::size_t(dir)) =
            link == absent_block ? absent_block : final_index[std::size_t(link)];
      }
      if (is_boundary[p]) {
        m_boundary_bits(k / 32) |= std::uint32_t(1) << (k % 32);
        ++m_boundary_blocks;
      }
    }
    // The kinds' runs in each group, and where the interior runs' non-boundary blocks start.
    for (int g = 0; g < 5; ++g) {
      const BlockRange blocks = group_blocks(g);
      for (int kind = 0; kind <= max_kinds; ++kind) {
        block_index_t b = blocks.begin;
        while (b < blocks.end && m_block_kinds[std::size_t(b)] < kind) ++b;
        m_kind_begin[std::size_t(g)][std::size_t(kind)] = b;
      }
    }
    for (int kind = 0; kind < max_kinds; ++kind) {
      const BlockRange run = group_blocks(interior, kind);
      block_index_t b = run.begin;
      while (b < run.end && boundary(b)) ++b;
      m_kind_split[std::size_t(kind)] = b;
    }
    for (auto& b : m_key_blocks) b = final_index[std::size_t(b)];
    for (auto& b : m_block_at)
      if (b != absent_block) b = final_index[std::size_t(b)];

    // On a host backend the kernels read the host tables themselves (no copy).
    m_view.neighbours = Kokkos::create_mirror_view_and_copy(MemorySpace(), m_neighbours);
    m_view.masks = Kokkos::create_mirror_view_and_copy(MemorySpace(), m_masks);
    m_view.boundary_bits = Kokkos::create_mirror_view_and_copy(MemorySpace(), m_boundary_bits);
    m_view.origins = Kokkos::create_mirror_view_and_copy(MemorySpace(), m_origins);
    m_view.extents = m_extents;
    m_view.blocks = block_index_t(n);
  }

  /// Discovery index of the block at direction `dir` of block coordinates `bc`, wrapping
  /// periodic axes; absent_block outside a non-periodic box or where nothing is stored.
  block_index_t linked_block(const std::array<int, 3>& bc, int dir) const {
    std::array<int, 3> to{};
    for (int a = 0; a < 3; ++a) {
      to[a] = bc[a] + shape_type::direction_offset(dir, a);
      if (to[a] < 0 || to[a] >= m_blocks_per_axis[a]) {
        if (!m_periodic[a] || (m_divided && a == slab_axis)) return absent_block;
        to[a] = (to[a] + m_blocks_per_axis[a]) % m_blocks_per_axis[a];
      }
    }
    return stored_block(dense_block(to[0], to[1], to[2]));
  }

  /// True when block p, at block coordinates `bc` of the box, is a boundary block (see the
  /// class comment).
  template <class Boundary>
  bool classify(const std::vector<Provisional>& found, std::size_t p, const block_index_t* row,
                const std::array<int, 3>& bc, const Boundary& boundary_voxel) const {
    if (found[p].mask != shape_type::full_mask) return true;
    // The stencil of the block's voxels reads, across each side, the neighbour's facing voxels.
    static constexpr std::array<mask_type, shape_type::directions> sides = shape_type::side_masks();
    for (int dir = 0; dir < shape_type::directions; ++dir) {
      if (dir == shape_type::centre) continue;
      const mask_type facing = sides[std::size_t(shape_type::directions - 1 - dir)];
      if (row[dir] == absent_block || (found[std::size_t(row[dir])].mask & facing) != facing) return true;
    }
    for (int l = 0; l < block_voxels; ++l) {
      const int x = bc[0] * B + shape_type::local_coordinate(l, 0), y = bc[1] * B + shape_type::local_coordinate(l, 1);
      const int z = Dim == 3 ? bc[2] * B + shape_type::local_coordinate(l, 2) : 0;
      if (boundary_voxel(x, y, z)) return true;
    }
    return false;
  }

  static index_t popcount(mask_type m) {
    index_t count = 0;
    for (; m != 0; m &= m - 1) ++count;
    return count;
  }

  /// Block coordinates in this rank's lattice of the block at lattice index `dense`.
  std::array<int, 3> lattice_coordinates(index_t dense) const {
    return {int(dense % m_blocks_per_axis[0]), int(dense / m_blocks_per_axis[0] % m_blocks_per_axis[1]),
            int(dense / (index_t(m_blocks_per_axis[0]) * m_blocks_per_axis[1]))};
  }

  /// A zeroed host table of `size` entries.
  template <class T>
  static Kokkos::View<T*, Kokkos::HostSpace> host_array(const std::string& label, std::size_t size) {
    return Kokkos::View<T*, Kokkos::HostSpace>(label, size);
  }

  Extents m_extents;
  std::array<bool, 3> m_periodic{};
  BlockGrouping m_grouping = BlockGrouping::memory;
  std::array<int, 3> m_blocks_per_axis{1, 1, 1};  ///< of this rank's lattice of blocks
  bool m_divided = false;
  int m_global_planes = 1;                       ///< block planes of the box along slab_axis
  int m_window_begin = 0;                        ///< block plane of the box at this rank's plane 0 (its lower halo)
  std::array<block_index_t, 6> m_group_begin{};  ///< first block of each group, then the end
  int m_kinds = 1;                               ///< kinds()
  /// First block of each kind in each group, then the group's end.
  std::array<std::array<block_index_t, max_kinds + 1>, 5> m_kind_begin{};
  std::array<block_index_t, max_kinds> m_kind_split{};  ///< first non-boundary block of each kind's run
  std::vector<std::uint8_t> m_block_kinds;              ///< kind(b)
  block_index_t m_boundary_blocks = 0;
  index_t m_active_voxels = 0;
  // Host tables: for queries, tests and output; kernels read m_view, their copy in MemorySpace
  // (the same Views on a host backend).
  Kokkos::View<mask_type*, Kokkos::HostSpace> m_masks;
  Kokkos::View<std::uint32_t*, Kokkos::HostSpace> m_boundary_bits;
  Kokkos::View<int*, Kokkos::HostSpace> m_origins;
  Kokkos::View<block_index_t*, Kokkos::HostSpace> m_neighbours;
  // What stored_block() reads: a table over the lattice, or sorted keys (index_stored_blocks()).
  std::vector<block_index_t> m_block_at;    ///< stored block of each lattice block, or absent_block
  std::vector<index_t> m_keys;              ///< lattice index of each stored block, ascending
  std::vector<block_index_t> m_key_blocks;  ///< the stored block of each key
  view_type m_view;
};

}  // namespace karman
