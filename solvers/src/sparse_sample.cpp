#include "flag_word.hpp"

#include <karman/lbm/sparse_sample.hpp>

#include <stdexcept>
#include <string>
#include <utility>

namespace karman::lbm {

SparseSample::SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities)
    : SparseSample(setup, std::move(velocities), {0, setup.global.extent(setup.global.slab_axis())}) {}

SparseSample::SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities, VoxelPlanes planes)
    : m_setup(setup), m_velocities(std::move(velocities)), m_axis(setup.global.slab_axis()) {
  const Extents& e = m_setup.global;
  const int n = e.extent(m_axis);
  // The planes and their stencils' planes; the whole axis when that covers it.
  m_first_plane = planes.begin - 1;
  int kept = planes.count + 2;
  if (kept >= n) {
    m_first_plane = 0;
    kept = n;
  }
  m_kept = e;
  (m_axis == 2 ? m_kept.nz : m_kept.ny) = kept;
  m_solid.assign(std::size_t(m_kept.size()), 0);
  if (!m_setup.geometry) return;
  for (int w = 0; w < kept; ++w) {
    const int plane = m_first_plane + w;
    // Planes past a closed side are never stored: solid() answers them without a byte.
    if (!m_setup.periodic[std::size_t(m_axis)] && (plane < 0 || plane >= n)) continue;
    const int p = (plane % n + n) % n;
    for (int b = 0; b < (m_axis == 2 ? e.ny : 1); ++b) {
      for (int x = 0; x < e.nx; ++x) {
        const int y = m_axis == 2 ? b : p, z = m_axis == 2 ? p : 0;
        m_solid[std::size_t(m_kept.index(x, m_axis == 2 ? b : w, m_axis == 2 ? w : 0))] =
            m_setup.geometry(x, y, z).kind == CellKind::solid;
      }
    }
  }
}

bool SparseSample::solid(int x, int y, int z) const {
  const Extents& e = m_setup.global;
  int p[3] = {x, y, z};
  const int n[3] = {e.nx, e.ny, e.nz};
  for (int a = 0; a < 3; ++a) {
    if (p[a] < 0 || p[a] >= n[a]) {
      if (!m_setup.periodic[a]) return true;
      p[a] = (p[a] + n[a]) % n[a];
    }
  }
  const int along = m_kept.extent(m_axis), total = n[m_axis];
  int w = p[m_axis] - m_first_plane;
  if (along < total) w = (w % total + total) % total;
  if (w < 0 || w >= along) {
    throw std::logic_error("karman::lbm::SparseSample: plane " + std::to_string(p[m_axis]) +
                           " is outside the kept planes " + std::to_string(m_first_plane) + ".." +
                           std::to_string(m_first_plane + along - 1));
  }
  p[m_axis] = w;
  return m_solid[std::size_t(m_kept.index(p[0], p[1], p[2]))] != 0;
}

bool SparseSample::active(int x, int y, int z) const {
  if (!solid(x, y, z)) return true;
  const int dz = m_setup.global.nz > 1 ? 1 : 0;
  for (int cz = -dz; cz <= dz; ++cz)
    for (int cy = -1; cy <= 1; ++cy)
      for (int cx = -1; cx <= 1; ++cx)
        if (!solid(x + cx, y + cy, z + cz)) return true;
  return false;
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
