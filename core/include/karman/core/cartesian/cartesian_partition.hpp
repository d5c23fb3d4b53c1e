#pragma once
/// \file cartesian_partition.hpp
/// The block of a global box one rank owns in a process grid of 1, 2 or 3 dimensions, with a
/// halo along every axis that is cut, closed or the slab axis, its voxels numbered so that each
/// face, edge and corner group is one consecutive range (Meneghin & Mahmoud §III, Fig. 5b,
/// generalised from slabs to blocks).
///
/// Numbering. Along an axis with a halo the local coordinates fall into five classes: the lower
/// halo, the first owned layer, the middle owned layers, the last owned layer and the upper halo
/// (halo_width thick each but the middle). The local box is the tensor product of these classes,
/// up to 125 cells. Every shared group is one cell (26 of them around the interior cell), every
/// halo group the 1, 3 or 9 cells beyond a corner, edge or face; groups follow one another in
/// memory (lower halos, lower shared groups, interior, upper shared groups, upper halos, in
/// NeighbourStep::index() order), the cells of a group in z, y, x class order, the voxels of a
/// cell x fastest. A neighbour's message is then, per crossing population, the same list of cells
/// on both sides: its sender's shared cells facing it and its receiver's one halo group. With a
/// halo along the slab axis only (the process grid 1×1×N, periodic along x and y) the groups
/// are SlabPartition's five and the numbering is its x-fastest one.

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace karman {

/// A rank's block of a global box in a dims[0]×dims[1]×dims[2] process grid.
class CartesianPartition {
 public:
  /// Classes of a local coordinate along one axis, in memory order.
  enum AxisClass : int { lower_halo = 0, first_layer = 1, middle = 2, last_layer = 3, upper_halo = 4 };

  /// Block `coords` of the grid `dims`; each axis is split as evenly as possible (the first
  /// n % dims ranks get one more layer).
  ///
  /// Boundaries. `periodic[a]` alone decides what lies past the box's sides along axis a,
  /// whatever the grid: periodic, the box wraps (through the neighbour's halo when the axis is
  /// cut, inside the kernels' CartesianNeighbours when it is not, and through a halo a local
  /// exchange fills along the slab axis, Extents::slab_axis(), as SlabPartition's); closed, the
  /// block has a halo on that side whose voxels no exchange writes: they hold what the user
  /// writes there (fill_closed_halos, closed_halos.hpp), zero in a Field Karman allocated. So a
  /// closed, a cut and the slab axis have a halo `halo_width` thick on both sides, and a
  /// periodic uncut axis other than the slab axis none. The default, periodic along every axis,
  /// is the meaning a partition had before it knew `periodic`. A block needs at least
  /// 2 * halo_width layers along each halo axis, so that its lower and upper shared layers are
  /// distinct. `periodic` along the z axis of a 2D box means nothing (it is one voxel thick).
  CartesianPartition(Extents global, std::array<int, 3> dims, std::array<int, 3> coords, int halo_width = 1,
                     std::array<bool, 3> periodic = {true, true, true})
      : m_global(global), m_dims(dims), m_coords(coords), m_width(halo_width), m_periodic(periodic) {
    const char* where = "karman::CartesianPartition";
    validate(global, where);
    const int dimension = global.dimension();
    require_in_range(where, "halo_width", halo_width, 1,
                     global.extent(global.slab_axis()) / 2 > 0 ? global.extent(global.slab_axis()) / 2 : 1);
    for (int a = 0; a < 3; ++a) {
      const std::string axis(1, "xyz"[a]);
      const int n = global.extent(a);
      const int most = a < dimension ? (n / (2 * halo_width) > 0 ? n / (2 * halo_width) : 1) : 1;
      require_in_range(where, ("ranks along " + axis).c_str(), dims[a], 1, most);
      require_in_range(where, ("block coordinate along " + axis).c_str(), coords[a], 0, dims[a] - 1);
      if (a >= dimension) m_periodic[a] = true;
      const int base = n / dims[a], extra = n % dims[a];
      m_owned_begin[a] = coords[a] * base + (coords[a] < extra ? coords[a] : extra);
      m_owned[a] = base + (coords[a] < extra ? 1 : 0);
      m_halo[a] = (dims[a] > 1 || a == global.slab_axis() || !m_periodic[a]) ? halo_width : 0;
      if (m_halo[a] > 0 && m_owned[a] < 2 * halo_width) {
        // Only a closed uncut axis gets here with one block: the others are checked above.
        throw Error(std::string(where) + ": " + std::to_string(n) + " voxels along " + axis + " give block " +
                    std::to_string(coords[a]) + " only " + std::to_string(m_owned[a]) + "; each block needs at least " +
                    std::to_string(2 * halo_width) +
                    (dims[a] > 1
                         ? " (use at most " + std::to_string(n / (2 * halo_width)) + " ranks along " + axis + ")"
                         : " along a closed axis (make " + axis + " periodic, or the box wider)"));
      }
      const int w = m_halo[a];
      const int sizes[5] = {w, w, m_owned[a] - 2 * w, w, w};
      int begin = 0;
      for (int k = 0; k < 5; ++k) {
        m_class_begin[a][k] = begin;
        m_class_size[a][k] = sizes[k];
        begin += sizes[k];
      }
    }
    m_local = {m_owned[0] + 2 * m_halo[0], m_owned[1] + 2 * m_halo[1], m_owned[2] + 2 * m_halo[2]};
    build_groups();
  }

  /// The whole box all ranks share.
  const Extents& global() const { return m_global; }
  /// This rank's box including its halos.
  const Extents& local() const { return m_local; }
  /// Ranks along each axis, and this block's place in that grid.
  const std::array<int, 3>& dims() const { return m_dims; }
  const std::array<int, 3>& coords() const { return m_coords; }
  /// This rank's index, x fastest over the grid (a slab's rank is its z coordinate), and the
  /// number of ranks.
  int rank() const { return rank_of(m_coords); }
  int ranks() const { return m_dims[0] * m_dims[1] * m_dims[2]; }
  /// Rank of the block at `coords` of this grid.
  int rank_of(const std::array<int, 3>& coords) const {
    return coords[0] + m_dims[0] * (coords[1] + m_dims[1] * coords[2]);
  }
  /// Whether the box wraps along each axis (see the constructor); true along z of a 2D box.
  const std::array<bool, 3>& periodic() const { return m_periodic; }
  /// Halo width asked for, and the halo along `axis`: halo_width() or 0 where the axis has none.
  int halo_width() const { return m_width; }
  int halo(int axis) const { return m_halo[axis]; }
  /// First owned layer along `axis` in global coordinates, and the owned layers.
  int owned_begin(int axis) const { return m_owned_begin[axis]; }
  int owned(int axis) const { return m_owned[axis]; }
  /// Voxels of the local box (owned and halo).
  index_t local_size() const { return m_local.size(); }

  /// The groups in memory order (see the file comment).
  const GroupTable& groups() const { return m_groups; }
  /// Voxels of group g.
  VoxelRange group(int g) const { return m_groups.range(g); }
  /// Index of the interior group.
  int interior_group() const { return m_groups.at(GroupRole::interior); }
  /// True when the block has halo and shared groups towards `step`: every axis it moves along has a halo.
  bool has_groups(NeighbourStep step) const {
    if (step.none()) return false;
    for (int a = 0; a < 3; ++a)
      if (step.d[a] != 0 && m_halo[a] == 0) return false;
    return true;
  }
  /// Every step with groups, in NeighbourStep::index() order (2 for a slab, 8 for a 2D block,
  /// 26 for a 3D block cut along all axes).
  std::vector<NeighbourStep> steps() const {
    std::vector<NeighbourStep> out;
    for (int i = 0; i < NeighbourStep::count; ++i)
      if (has_groups(NeighbourStep::from_index(i))) out.push_back(NeighbourStep::from_index(i));
    return out;
  }
  /// True when the halo group towards `step` lies past a closed side of the box: the block has
  /// groups towards `step`, and along some axis it moves along the block is the grid's first
  /// (or last) and the axis is not periodic. No exchange fills such a halo; the user does
  /// (fill_closed_halos). Every other step with groups has a neighbour block, possibly itself.
  bool closed(NeighbourStep step) const {
    if (!has_groups(step)) return false;
    for (int a = 0; a < 3; ++a) {
      const int to = m_coords[a] + step.d[a];
      if (!m_periodic[a] && (to < 0 || to >= m_dims[a])) return true;
    }
    return false;
  }
  /// Index of the halo group copying the neighbour `step` away, and of the shared cell along
  /// the face, edge or corner `step`.
  int halo_group(NeighbourStep step) const { return m_groups.at(GroupRole::halo, step); }
  int shared_group(NeighbourStep step) const { return m_groups.at(GroupRole::shared, step); }
  /// The shared groups whose voxels the neighbour `step` away reads, in the order its halo
  /// group holds them (z, y, x class order): the cells on the face, edge or corner `step`,
  /// 9 for a face of a block cut along all axes, 3 for an edge, 1 for a corner.
  std::vector<int> shared_groups_towards(NeighbourStep step) const {
    std::vector<int> out;
    for_cells_towards(step, false, [&](const std::array<int, 3>& cls) { out.push_back(shared_group(step_of(cls))); });
    return out;
  }

  /// All owned voxels: the shared groups and the interior, consecutive between the lower and
  /// the upper halo groups.
  VoxelRange owned() const {
    const VoxelRange interior = group(interior_group());
    VoxelRange out = interior;
    for (int g = 0; g < m_groups.size(); ++g) {
      if (m_groups[g].role != GroupRole::shared) continue;
      const VoxelRange r = group(g);
      out.begin = r.begin < out.begin ? r.begin : out.begin;
      out.end = r.end > out.end ? r.end : out.end;
    }
    return out;
  }
  /// Global coordinates of local coordinates (0, 0, 0): the first owned voxel less the halo,
  /// per axis (negative below the box's first block).
  std::array<int, 3> origin() const {
    return {m_owned_begin[0] - m_halo[0], m_owned_begin[1] - m_halo[1], m_owned_begin[2] - m_halo[2]};
  }
  /// Local coordinates of local voxel `v`: the inverse of index().
  std::array<int, 3> coordinates(index_t v) const {
    // The last non-empty cell beginning at or before v (cells are laid out in increasing order).
    const auto after = std::upper_bound(m_cells_in_order.begin(), m_cells_in_order.end(), v,
                                        [](index_t x, const std::pair<index_t, int>& c) { return x < c.first; });
    const int c = std::prev(after)->second;
    const std::array<int, 3> cls{c % 5, c / 5 % 5, c / 25};
    const index_t in = v - m_cell_begin[c], sx = m_class_size[0][cls[0]], sy = m_class_size[1][cls[1]];
    return {m_class_begin[0][cls[0]] + int(in % sx), m_class_begin[1][cls[1]] + int(in / sx % sy),
            m_class_begin[2][cls[2]] + int(in / (sx * sy))};
  }

  /// One cell: its class along each axis (AxisClass), its voxels and its group (a shared cell
  /// is a group of its own, a halo cell part of one).
  struct Cell {
    std::array<int, 3> classes;
    VoxelRange voxels;
    int group;
  };
  /// The non-empty cells of the halo group towards `step` (halo = true), or the shared cells on
  /// the face, edge or corner `step` (halo = false), in memory order (z, y, x class order): the
  /// order in which a neighbour's halo group holds this block's shared cells.
  std::vector<Cell> cells_towards(NeighbourStep step, bool halo) const {
    std::vector<Cell> out;
    for_cells_towards(step, halo, [&](const std::array<int, 3>& cls) {
      if (cell_size(cls) == 0) return;
      const index_t begin = m_cell_begin[cell(cls)];
      out.push_back({cls, {begin, begin + cell_size(cls)}, halo ? halo_group(step) : shared_group(step_of(cls))});
    });
    return out;
  }

  /// Local index of local coordinates (x, y, z), halos included (0 <= x < local().nx, ...).
  index_t index(int x, int y, int z) const {
    const int p[3] = {x, y, z};
    std::array<int, 3> cls{}, in{};
    for (int a = 0; a < 3; ++a) {
      int k = 0;
      while (p[a] >= m_class_begin[a][k] + m_class_size[a][k]) ++k;
      cls[a] = k;
      in[a] = p[a] - m_class_begin[a][k];
    }
    const int c = cell(cls);
    return m_cell_begin[c] + in[0] +
           index_t(m_class_size[0][cls[0]]) * (in[1] + index_t(m_class_size[1][cls[1]]) * in[2]);
  }
  /// Class of local coordinate `x` along `axis`.
  AxisClass class_of(int axis, int x) const {
    int k = 0;
    while (x >= m_class_begin[axis][k] + m_class_size[axis][k]) ++k;
    return AxisClass(k);
  }
  /// First local coordinate and layers of class `k` along `axis`.
  int class_begin(int axis, AxisClass k) const { return m_class_begin[axis][k]; }
  int class_size(int axis, AxisClass k) const { return m_class_size[axis][k]; }

 private:
  static int cell(const std::array<int, 3>& cls) { return cls[0] + 5 * (cls[1] + 5 * cls[2]); }

  /// The step a cell of owned classes faces: -1 first layer, 0 middle, +1 last layer per axis.
  static NeighbourStep step_of(const std::array<int, 3>& cls) {
    NeighbourStep s;
    for (int a = 0; a < 3; ++a) s.d[a] = cls[a] - middle;
    return s;
  }

  /// Calls f(classes) for the non-empty cells of the halo group towards `step` (halo = true)
  /// or of the shared cells on its face, edge or corner (halo = false), z, y, x class order.
  template <class F>
  void for_cells_towards(NeighbourStep step, bool halo, F&& f) const {
    std::array<int, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) {
      if (step.d[a] != 0) {
        lo[a] = hi[a] = halo ? (step.d[a] < 0 ? lower_halo : upper_halo) : (step.d[a] < 0 ? first_layer : last_layer);
      } else if (m_halo[a] > 0) {
        lo[a] = first_layer;
        hi[a] = last_layer;
      } else {
        lo[a] = hi[a] = middle;
      }
    }
    std::array<int, 3> cls{};
    for (cls[2] = lo[2]; cls[2] <= hi[2]; ++cls[2])
      for (cls[1] = lo[1]; cls[1] <= hi[1]; ++cls[1])
        for (cls[0] = lo[0]; cls[0] <= hi[0]; ++cls[0]) f(cls);
  }

  index_t cell_size(const std::array<int, 3>& cls) const {
    return index_t(m_class_size[0][cls[0]]) * m_class_size[1][cls[1]] * m_class_size[2][cls[2]];
  }

  /// Lays the groups out in memory order and records where each cell begins.
  void build_groups() {
    const std::vector<NeighbourStep> all = steps();
    std::vector<NeighbourStep> lower, upper;
    for (const NeighbourStep& s : all) (s.index() < NeighbourStep{}.index() ? lower : upper).push_back(s);
    index_t next = 0;
    const auto add_halo = [&](NeighbourStep s) {
      index_t voxels = 0;
      for_cells_towards(s, true, [&](const std::array<int, 3>& cls) {
        m_cell_begin[cell(cls)] = next + voxels;
        if (cell_size(cls) > 0) m_cells_in_order.emplace_back(next + voxels, cell(cls));
        voxels += cell_size(cls);
      });
      m_groups.add(GroupRole::halo, s, voxels);
      next += voxels;
    };
    const auto add_cell = [&](GroupRole role, NeighbourStep s) {
      std::array<int, 3> cls{};
      for (int a = 0; a < 3; ++a) cls[a] = middle + s.d[a];
      m_cell_begin[cell(cls)] = next;
      if (cell_size(cls) > 0) m_cells_in_order.emplace_back(next, cell(cls));
      m_groups.add(role, s, cell_size(cls));
      next += cell_size(cls);
    };
    for (const NeighbourStep& s : lower) add_halo(s);
    for (const NeighbourStep& s : lower) add_cell(GroupRole::shared, s);
    add_cell(GroupRole::interior, {});
    for (const NeighbourStep& s : upper) add_cell(GroupRole::shared, s);
    for (const NeighbourStep& s : upper) add_halo(s);
  }

  Extents m_global;
  Extents m_local;
  std::array<int, 3> m_dims{1, 1, 1};
  std::array<int, 3> m_coords{0, 0, 0};
  int m_width = 1;
  std::array<bool, 3> m_periodic{true, true, true};
  std::array<int, 3> m_owned_begin{};
  std::array<int, 3> m_owned{};
  std::array<int, 3> m_halo{};
  int m_class_begin[3][5] = {};
  int m_class_size[3][5] = {};
  std::array<index_t, 125> m_cell_begin{};
  std::vector<std::pair<index_t, int>> m_cells_in_order;  ///< (first voxel, cell) of the non-empty cells
  GroupTable m_groups;
};

}  // namespace karman
