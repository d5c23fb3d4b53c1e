#include "flag_word.hpp"

#include <karman/lbm/sparse_sample.hpp>

#include <utility>

namespace karman::lbm {

SparseSample::SparseSample(const SolverSetup& setup, std::vector<std::array<int, 3>> velocities)
    : m_setup(setup), m_velocities(std::move(velocities)), m_solid(std::size_t(setup.global.size()), 0) {
  if (!m_setup.geometry) return;
  const Extents& e = m_setup.global;
  for (int z = 0; z < e.nz; ++z)
    for (int y = 0; y < e.ny; ++y)
      for (int x = 0; x < e.nx; ++x)
        m_solid[std::size_t(e.index(x, y, z))] = m_setup.geometry(x, y, z).kind == CellKind::solid;
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
  return m_solid[std::size_t(e.index(p[0], p[1], p[2]))] != 0;
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
