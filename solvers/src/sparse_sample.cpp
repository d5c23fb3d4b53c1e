#include <karman/core/sparse/block_shape.hpp>
#include <karman/lbm/flag_word.hpp>
#include <karman/lbm/sparse_sample.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace karman::lbm {
namespace {

/// `c` wrapped into [0, n) on a periodic axis; -1 past a closed side.
int wrap(long long c, int n, bool periodic) {
  if (c >= 0 && c < n) return int(c);
  if (!periodic) return -1;
  return int(((c % n) + n) % n);
}

using Shape2 = BlockShape<2, sparse_block_edge<2>>;
using Shape3 = BlockShape<3, sparse_block_edge<3>>;

/// Local index of voxel (x, y, z) of the box in its block (BlockShape's order); coordinates are
/// in the box, so unsigned remainders (masks) serve.
int local_of(int x, int y, int z, int dimension) {
  const auto in = [](int c, int edge) { return int(unsigned(c) % unsigned(edge)); };
  return dimension == 3 ? Shape3::local_index(in(x, Shape3::edge), in(y, Shape3::edge), in(z, Shape3::edge))
                        : Shape2::local_index(in(x, Shape2::edge), in(y, Shape2::edge), 0);
}

/// One voxel plane of the sweep: its solid voxels, and which voxels have a non-solid voxel among
/// their 3^(D-1) neighbours in the plane (themselves included).
struct Plane {
  long long at = -(1ll << 40);  ///< plane number along the axis as swept (not wrapped)
  std::vector<std::uint8_t> solid, near_fluid;
};

/// Classifies the voxel planes of a box across its slab axis. Each in-plane axis's neighbour
/// indices are found once: a neighbour past a closed side is the voxel itself, which changes
/// nothing in an "any non-solid" test.
class PlaneClassifier {
 public:
  PlaneClassifier(const SolverSetup& setup, int axis)
      : m_setup(setup),
        m_axis(axis),
        m_nx(setup.global.nx),
        m_ny(setup.global.dimension() == 3 ? setup.global.ny : 1),
        m_x_sides(sides(m_nx, setup.periodic[0])),
        m_y_sides(sides(m_ny, setup.periodic[1])) {}

  /// Fills `p` for the voxel plane `at` (wrapped on a periodic axis; past a closed side, solid).
  void classify(long long at, Plane& p) const {
    const bool three_d = m_setup.global.dimension() == 3;
    p.at = at;
    p.solid.assign(std::size_t(m_nx) * std::size_t(m_ny), 1);
    p.near_fluid.assign(p.solid.size(), 0);
    const int plane = wrap(at, m_setup.global.extent(m_axis), m_setup.periodic[std::size_t(m_axis)]);
    if (plane < 0) return;  // past a closed side: solid
    for (int y = 0; y < m_ny; ++y)
      for (int x = 0; x < m_nx; ++x) {
        const bool solid =
            m_setup.geometry && m_setup.geometry(x, three_d ? y : plane, three_d ? plane : 0).kind == CellKind::solid;
        p.solid[index(x, y)] = solid;
      }
    // Non-solid voxels among the neighbours along x, then along y in 3D (separable: a voxel has
    // a non-solid voxel in its 3x3 square when a row of it has one).
    std::vector<std::uint8_t>& along_x = three_d ? m_along_x : p.near_fluid;
    along_x.resize(p.solid.size());
    for (int y = 0; y < m_ny; ++y) {
      const std::uint8_t* row = p.solid.data() + index(0, y);
      std::uint8_t* out = along_x.data() + index(0, y);
      for (int x = 0; x < m_nx; ++x) {
        const auto& [lower, upper] = m_x_sides[std::size_t(x)];
        out[x] = !(row[x] && row[lower] && row[upper]);
      }
    }
    if (!three_d) return;
    for (int y = 0; y < m_ny; ++y) {
      const auto& [lower, upper] = m_y_sides[std::size_t(y)];
      const std::uint8_t *self = along_x.data() + index(0, y), *below = along_x.data() + index(0, lower),
                         *above = along_x.data() + index(0, upper);
      std::uint8_t* out = p.near_fluid.data() + index(0, y);
      for (int x = 0; x < m_nx; ++x) out[x] = self[x] | below[x] | above[x];
    }
  }

 private:
  /// The lower and upper neighbour of each index along an axis of n voxels.
  static std::vector<std::array<int, 2>> sides(int n, bool periodic) {
    std::vector<std::array<int, 2>> s(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int lower = wrap(i - 1, n, periodic), upper = wrap(i + 1, n, periodic);
      s[std::size_t(i)] = {lower < 0 ? i : lower, upper < 0 ? i : upper};
    }
    return s;
  }
  std::size_t index(int x, int y) const { return std::size_t(x) + std::size_t(m_nx) * std::size_t(y); }

  const SolverSetup& m_setup;
  int m_axis, m_nx, m_ny;
  std::vector<std::array<int, 2>> m_x_sides, m_y_sides;
  mutable std::vector<std::uint8_t> m_along_x;  ///< scratch of classify() in 3D
};

}  // namespace

SparseSample::SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities)
    : SparseSample(setup, std::move(velocities), {0, setup.global.extent(setup.global.slab_axis())}) {}

SparseSample::SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities, VoxelPlanes planes)
    : m_setup(setup),
      m_velocities(std::move(velocities)),
      m_axis(setup.global.slab_axis()),
      m_edge(block_edge(setup.global.dimension())) {
  while ((1 << m_edge_shift) < m_edge) ++m_edge_shift;
  const Extents& e = m_setup.global;
  for (int a = 0; a < 3; ++a) m_blocks[std::size_t(a)] = (e.extent(a) + m_edge - 1) / m_edge;
  if (e.dimension() == 2) m_blocks[2] = 1;
  const int planes_along = m_blocks[std::size_t(m_axis)];
  // The block planes holding the asked voxel planes and one on each side; the whole axis when
  // that covers it.
  const auto floor_div = [&](int v) { return v >= 0 ? v / m_edge : -((-v + m_edge - 1) / m_edge); };
  m_first_block_plane = floor_div(planes.begin) - 1;
  m_kept_block_planes = floor_div(planes.begin + planes.count + m_edge - 1) + 1 - m_first_block_plane;
  if (m_kept_block_planes >= planes_along) {
    m_first_block_plane = 0;
    m_kept_block_planes = planes_along;
  }
  sweep();
}

void SparseSample::sweep() {
  const Extents& e = m_setup.global;
  const bool three_d = e.dimension() == 3;
  const int nx = e.nx, ny = three_d ? e.ny : 1, n = e.extent(m_axis), B = m_edge;
  const int bx_count = m_blocks[0], by_count = three_d ? m_blocks[1] : 1;
  const std::size_t plane_blocks = std::size_t(bx_count) * std::size_t(by_count);
  std::vector<std::uint64_t> active(plane_blocks), solid(plane_blocks);
  // Three voxel planes at a time, each kept in slot `at` mod 3.
  const PlaneClassifier classifier(m_setup, m_axis);
  std::array<Plane, 3> planes;
  const auto plane = [&](long long at) -> const Plane& {
    Plane& p = planes[std::size_t(((at % 3) + 3) % 3)];
    if (p.at != at) classifier.classify(at, p);
    return p;
  };
  for (int w = 0; w < m_kept_block_planes; ++w) {
    const long long block_plane = (long long)m_first_block_plane + w;
    if (wrap(block_plane, m_blocks[std::size_t(m_axis)], m_setup.periodic[std::size_t(m_axis)]) < 0) continue;
    std::fill(active.begin(), active.end(), 0);
    std::fill(solid.begin(), solid.end(), ~std::uint64_t(0));
    for (int l = 0; l < B; ++l) {
      const long long at = block_plane * B + l;
      // Voxels past a closed side along the axis stay solid and inactive.
      if (wrap(at, n, m_setup.periodic[std::size_t(m_axis)]) < 0) continue;
      const Plane &below = plane(at - 1), &self = plane(at), &above = plane(at + 1);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const std::size_t v = std::size_t(x) + std::size_t(nx) * std::size_t(y);
          const std::size_t b = std::size_t(x >> m_edge_shift) + std::size_t(bx_count) * std::size_t(y >> m_edge_shift);
          const int local = three_d ? local_of(x, y, l, 3) : local_of(x, l, 0, 2);
          const std::uint64_t near = below.near_fluid[v] | self.near_fluid[v] | above.near_fluid[v];
          active[b] |= near << local;
          solid[b] &= ~(std::uint64_t(!self.solid[v]) << local);
        }
    }
    for (std::size_t b = 0; b < plane_blocks; ++b) {
      if (active[b] == 0) continue;
      m_keys.push_back(index_t(b) + index_t(plane_blocks) * w);
      m_active.push_back(active[b]);
      m_solid.push_back(solid[b]);
    }
  }
  // The look-up: a table over the kept planes' blocks where that costs at most 16 entries a
  // kept block, else a search of the ascending keys.
  const index_t lattice_blocks = index_t(plane_blocks) * m_kept_block_planes;
  if (lattice_blocks <= 16 * index_t(m_keys.size())) {
    m_table.assign(std::size_t(lattice_blocks), -1);
    for (std::size_t k = 0; k < m_keys.size(); ++k) m_table[std::size_t(m_keys[k])] = std::int32_t(k);
  }
}

long long SparseSample::kept_block(int x, int y, int z) const {
  const Extents& e = m_setup.global;
  // Coordinates are in the box, so block coordinates are quotients of non-negative values; the
  // kept planes may start before plane 0 or wrap past the last on a periodic axis.
  const int c[3] = {x, y, z};
  const int planes_along = m_blocks[std::size_t(m_axis)];
  int w = (c[m_axis] >> m_edge_shift) - m_first_block_plane;
  if (m_kept_block_planes < planes_along) {
    if (w < 0) w += planes_along;
    if (w >= planes_along) w -= planes_along;
  }
  if (w < 0 || w >= m_kept_block_planes) {
    throw std::logic_error("karman::lbm::SparseSample: plane " + std::to_string(c[m_axis]) +
                           " is outside the kept planes " + std::to_string(m_first_block_plane * m_edge) + ".." +
                           std::to_string((m_first_block_plane + m_kept_block_planes) * m_edge - 1));
  }
  const bool three_d = e.dimension() == 3;
  const index_t in_plane = index_t(x >> m_edge_shift) + index_t(m_blocks[0]) * (three_d ? y >> m_edge_shift : 0);
  const index_t key = in_plane + index_t(m_blocks[0]) * (three_d ? m_blocks[1] : 1) * w;
  if (!m_table.empty()) return m_table[std::size_t(key)];
  const auto it = std::lower_bound(m_keys.begin(), m_keys.end(), key);
  return it != m_keys.end() && *it == key ? (long long)(it - m_keys.begin()) : -1;
}

bool SparseSample::solid(int x, int y, int z) const {
  const Extents& e = m_setup.global;
  int p[3] = {x, y, z};
  for (int a = 0; a < e.dimension(); ++a) {
    p[a] = wrap(p[a], e.extent(a), m_setup.periodic[std::size_t(a)]);
    if (p[a] < 0) return true;
  }
  const long long k = kept_block(p[0], p[1], p[2]);
  return k < 0 || ((m_solid[std::size_t(k)] >> local_of(p[0], p[1], p[2], e.dimension())) & 1u);
}

bool SparseSample::active(int x, int y, int z) const {
  const long long k = kept_block(x, y, z);
  return k >= 0 && ((m_active[std::size_t(k)] >> local_of(x, y, z, m_setup.global.dimension())) & 1u);
}

std::array<int, 3> SparseSample::block_at(std::size_t k) const {
  const bool three_d = m_setup.global.dimension() == 3;
  const index_t per_plane = index_t(m_blocks[0]) * (three_d ? m_blocks[1] : 1);
  const index_t key = m_keys[k];
  const int w = int(key / per_plane), in_plane = int(key % per_plane);
  const int planes_along = m_blocks[std::size_t(m_axis)];
  const int plane = ((m_first_block_plane + w) % planes_along + planes_along) % planes_along;
  const int bx = in_plane % m_blocks[0];
  return three_d ? std::array<int, 3>{bx, in_plane / m_blocks[0], plane} : std::array<int, 3>{bx, plane, 0};
}

std::size_t SparseSample::host_bytes() const {
  return m_keys.capacity() * sizeof(index_t) + (m_active.capacity() + m_solid.capacity()) * sizeof(std::uint64_t) +
         m_table.capacity() * sizeof(std::int32_t);
}

flag_t SparseSample::flag(int x, int y, int z) const {
  const CellSpec self = m_setup.geometry ? m_setup.geometry(x, y, z) : CellSpec{};
  return detail::flag_word(self, m_setup.boundaries, m_velocities,
                           [&](const std::array<int, 3>& c) { return solid(x - c[0], y - c[1], z - c[2]); });
}

FlowState SparseSample::initial(int x, int y, int z) const {
  return m_setup.initial ? m_setup.initial(x, y, z) : FlowState{};
}

}  // namespace karman::lbm
