#pragma once
/// \file block_sparse_grid.hpp
/// A block-sparse grid (Meneghin & Mahmoud §IV, §VI-B): a box tiled by B^Dim voxel blocks of
/// which only those holding at least one active voxel are stored, each with a voxel mask and a
/// row of the neighbour-block table. Blocks are classified boundary / non-boundary and either
/// stored in two contiguous runs (Table II "Disag - Mem") or marked by a bit per block
/// (Table II "Disag - Bitmask"); both carry the bit.
///
/// Voxel indices are block * B^Dim + local, so fields on the grid are ordinary Fields over
/// `group_table()` and a kernel reaches neighbours through BlockNeighbours::at exactly as it
/// does through Neighbours<Dim>::at on a dense box.
///
/// A multi-resolution grid (Meneghin & Mahmoud §V) is a stack of these, one per level, each
/// over its own box (level l has voxels 2^l times the finest); cross-level tables (parent and
/// child blocks) sit beside the levels, and the voxel classifier that here marks boundary
/// voxels there marks voxels at distance 0 from a resolution jump, so the same grouping
/// separates the fused-kernel blocks from the jump blocks of each level.

#include <karman/core/block_grid_view.hpp>
#include <karman/core/block_shape.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>
#include <karman/core/layout_csoa.hpp>

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
/// Z-order (Morton) key of block coordinates, 21 bits per axis: blocks close in space get
/// close keys, the space-filling-curve order Meneghin & Mahmoud §IV assume for block storage.
inline std::uint64_t morton_key(int bx, int by, int bz) {
  const auto spread = [](std::uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
  };
  return spread(std::uint64_t(bx)) | spread(std::uint64_t(by)) << 1 | spread(std::uint64_t(bz)) << 2;
}
}  // namespace detail

/// Block-sparse grid of B^Dim voxel blocks over a box, its tables on MemorySpace.
///
/// A block is a *boundary* block when one of its active voxels is a boundary voxel (the
/// caller's classifier: walls, inlets, outlets...) or has an inactive voxel in its stencil
/// (inside the block, in a block not stored, or outside a non-periodic box). A non-boundary
/// block therefore has every voxel active and every stencil neighbour active: its kernel needs
/// neither a mask test nor any boundary code (Meneghin & Mahmoud §IV-B: r_nb registers).
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
      : m_extents(extents), m_periodic(periodic), m_grouping(grouping) {
    check_box(extents, periodic);
    if constexpr (Dim == 2) m_periodic[2] = false;
    for (int a = 0; a < 3; ++a) m_blocks_per_axis[a] = a < Dim ? (extents.extent(a) + B - 1) / B : 1;
    const std::vector<Provisional> found = find_blocks(active);
    if (found.empty()) {
      throw Error("karman::BlockSparseGrid: no active voxel in the " + std::to_string(extents.nx) + "x" +
                  std::to_string(extents.ny) + "x" + std::to_string(extents.nz) + " box (at least 1 needed)");
    }
    build(label, found, boundary);
  }

  /// The box the blocks tile.
  const Extents& extents() const { return m_extents; }
  /// True when axis 0 (x), 1 (y) or 2 (z) wraps around.
  bool periodic(int axis) const { return m_periodic[axis]; }
  /// How boundary blocks are told apart.
  BlockGrouping grouping() const { return m_grouping; }
  /// Stored blocks.
  block_index_t block_count() const { return block_index_t(m_masks.size()); }
  /// Boundary blocks among them.
  block_index_t boundary_block_count() const { return m_boundary_blocks; }
  /// Voxels of the stored blocks, inactive ones included: the voxel count fields hold.
  index_t voxel_count() const { return index_t(block_count()) * block_voxels; }
  /// Active voxels.
  index_t active_voxel_count() const { return m_active_voxels; }
  /// Groups for fields on this grid: every stored voxel is interior (one rank, no halo).
  GroupTable group_table() const { return GroupTable::single(voxel_count()); }

  /// The blocks a kernel over `set` spans: with memory grouping each set is a contiguous run
  /// (boundary blocks first); with bitmask grouping every set spans all blocks and the kernel
  /// tests the bit (Table II, "# Blocks").
  BlockRange span(BlockSet set) const {
    if (m_grouping == BlockGrouping::bitmask || set == BlockSet::all) return {0, block_count()};
    return set == BlockSet::boundary ? BlockRange{0, m_boundary_blocks} : BlockRange{m_boundary_blocks, block_count()};
  }

  /// Voxel mask of block b (host copy).
  mask_type mask(block_index_t b) const { return m_masks[std::size_t(b)]; }
  /// True when block b is a boundary block (host copy of the bit).
  bool boundary(block_index_t b) const { return (m_boundary_bits[std::size_t(b) / 32] >> (b % 32)) & 1u; }
  /// Coordinates of block b's voxel (0, 0, 0) in the box.
  std::array<int, 3> origin(block_index_t b) const {
    const std::size_t k = std::size_t(b) * 3;
    return {m_origins[k], m_origins[k + 1], m_origins[k + 2]};
  }
  /// Block at direction `dir` (BlockShape::direction) of block b, or absent_block.
  block_index_t neighbour(block_index_t b, int dir) const {
    return m_neighbours[std::size_t(b) * shape_type::directions + std::size_t(dir)];
  }
  /// Voxel index of the voxel at (x, y, z), or absent_voxel when its block is not stored or
  /// the coordinates are outside the box (host side).
  index_t find(int x, int y, int z) const {
    if (x < 0 || y < 0 || z < 0 || x >= m_extents.nx || y >= m_extents.ny || z >= m_extents.nz) return absent_voxel;
    const block_index_t b = m_block_at[std::size_t(dense_block(x / B, y / B, z / B))];
    if (b == absent_block) return absent_voxel;
    return view_type::voxel_of(b, shape_type::local_index(x % B, y % B, Dim == 3 ? z % B : 0));
  }

  /// The device tables, for kernels.
  const view_type& view() const { return m_view; }

 private:
  /// A block as found, before the final ordering.
  struct Provisional {
    index_t dense = 0;  ///< index in the full block lattice, x fastest
    mask_type mask = 0;
  };

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
    index_t dense_blocks = 1;
    for (int a = 0; a < Dim; ++a) dense_blocks *= (extents.extent(a) + B - 1) / B;
    if (dense_blocks > std::numeric_limits<block_index_t>::max()) {
      throw Error("karman::BlockSparseGrid: " + std::to_string(dense_blocks) + " blocks of " + std::to_string(B) + "^" +
                  std::to_string(Dim) + " voxels tile the box, more than the " +
                  std::to_string(std::numeric_limits<block_index_t>::max()) + " a 32-bit block index addresses");
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
          mask_type m = 0;
          for (int l = 0; l < block_voxels; ++l) {
            const int x = bx * B + shape_type::local_coordinate(l, 0), y = by * B + shape_type::local_coordinate(l, 1);
            const int z = Dim == 3 ? bz * B + shape_type::local_coordinate(l, 2) : 0;
            if (x < m_extents.nx && y < m_extents.ny && z < m_extents.nz && active(x, y, z)) m |= mask_type(1) << l;
          }
          if (m != 0) found.push_back({dense_block(bx, by, bz), m});
        }
      }
    }
    return found;
  }

  /// Classifies, orders and links the found blocks, then fills the host and device tables.
  template <class Boundary>
  void build(const std::string& label, const std::vector<Provisional>& found, const Boundary& boundary_voxel) {
    const std::size_t n = found.size();
    constexpr int dirs = shape_type::directions;
    m_block_at.assign(std::size_t(index_t(m_blocks_per_axis[0]) * m_blocks_per_axis[1] * m_blocks_per_axis[2]),
                      absent_block);
    for (std::size_t p = 0; p < n; ++p) m_block_at[std::size_t(found[p].dense)] = block_index_t(p);

    // Neighbour rows and classification in discovery order, renumbered below.
    std::vector<block_index_t> links(n * dirs);
    std::vector<std::array<int, 3>> coords(n);
    std::vector<char> is_boundary(n);
    for (std::size_t p = 0; p < n; ++p) {
      const index_t d = found[p].dense;
      const std::array<int, 3> bc = {int(d % m_blocks_per_axis[0]),
                                     int(d / m_blocks_per_axis[0] % m_blocks_per_axis[1]),
                                     int(d / (index_t(m_blocks_per_axis[0]) * m_blocks_per_axis[1]))};
      coords[p] = bc;
      for (int dir = 0; dir < dirs; ++dir) links[p * dirs + dir] = linked_block(bc, dir);
      is_boundary[p] = classify(found, p, links.data() + p * dirs, bc, boundary_voxel);
    }

    // Memory grouping puts boundary blocks first; both orders are Z-order inside a group.
    std::vector<std::uint64_t> keys(n);
    for (std::size_t p = 0; p < n; ++p) keys[p] = detail::morton_key(coords[p][0], coords[p][1], coords[p][2]);
    std::vector<block_index_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const bool grouped = m_grouping == BlockGrouping::memory;
    std::sort(order.begin(), order.end(), [&](block_index_t a, block_index_t b) {
      const bool ga = grouped && !is_boundary[std::size_t(a)], gb = grouped && !is_boundary[std::size_t(b)];
      return ga != gb ? gb : keys[std::size_t(a)] < keys[std::size_t(b)];
    });
    std::vector<block_index_t> final_index(n);
    for (std::size_t k = 0; k < n; ++k) final_index[std::size_t(order[k])] = block_index_t(k);

    m_masks.resize(n);
    m_origins.resize(3 * n);
    m_neighbours.resize(n * dirs);
    m_boundary_bits.assign((n + 31) / 32, 0u);
    m_boundary_blocks = 0;
    m_active_voxels = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t p = std::size_t(order[k]);
      m_masks[k] = found[p].mask;
      m_active_voxels += popcount(found[p].mask);
      for (int a = 0; a < 3; ++a) m_origins[3 * k + std::size_t(a)] = coords[p][std::size_t(a)] * B;
      for (int dir = 0; dir < dirs; ++dir) {
        const block_index_t link = links[p * dirs + std::size_t(dir)];
        m_neighbours[k * dirs + std::size_t(dir)] =
            link == absent_block ? absent_block : final_index[std::size_t(link)];
      }
      if (is_boundary[p]) {
        m_boundary_bits[k / 32] |= std::uint32_t(1) << (k % 32);
        ++m_boundary_blocks;
      }
    }
    for (auto& b : m_block_at)
      if (b != absent_block) b = final_index[std::size_t(b)];

    m_view.neighbours = to_device(label + "::neighbours", m_neighbours);
    m_view.masks = to_device(label + "::masks", m_masks);
    m_view.boundary_bits = to_device(label + "::boundary_bits", m_boundary_bits);
    m_view.origins = to_device(label + "::origins", m_origins);
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
        if (!m_periodic[a]) return absent_block;
        to[a] = (to[a] + m_blocks_per_axis[a]) % m_blocks_per_axis[a];
      }
    }
    return m_block_at[std::size_t(dense_block(to[0], to[1], to[2]))];
  }

  /// True when block p is a boundary block (see the class comment).
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

  template <class T>
  static Kokkos::View<const T*, MemorySpace> to_device(const std::string& label, const std::vector<T>& host) {
    Kokkos::View<T*, MemorySpace> device(label, host.size());
    Kokkos::deep_copy(device, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  host.data(), host.size()));
    return device;
  }

  Extents m_extents;
  std::array<bool, 3> m_periodic{};
  BlockGrouping m_grouping = BlockGrouping::memory;
  std::array<int, 3> m_blocks_per_axis{1, 1, 1};
  block_index_t m_boundary_blocks = 0;
  index_t m_active_voxels = 0;
  // Host copies: for queries, tests and output; kernels read m_view only.
  std::vector<mask_type> m_masks;
  std::vector<std::uint32_t> m_boundary_bits;
  std::vector<int> m_origins;
  std::vector<block_index_t> m_neighbours;
  std::vector<block_index_t> m_block_at;  ///< stored block of each lattice block, or absent_block
  view_type m_view;
};

}  // namespace karman
