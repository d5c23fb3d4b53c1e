#include "flag_word.hpp"

#include <karman/lbm/solver.hpp>

namespace karman::lbm {
namespace {

/// Global coordinates of local voxel v; the slab axis is shifted by the owned offset and
/// wrapped when periodic. Returns false when the voxel lies outside a non-periodic box.
bool global_coordinates(const SlabPartition& part, const std::array<bool, 3>& periodic, index_t v, int (&g)[3]) {
  const Extents& local = part.local();
  g[0] = int(v % local.nx);
  g[1] = int(v / local.nx % local.ny);
  g[2] = int(v / (index_t(local.nx) * local.ny));
  g[part.axis()] += part.owned_begin() - 1;
  const int n = part.global().extent(part.axis());
  if (g[part.axis()] < 0 || g[part.axis()] >= n) {
    if (!periodic[part.axis()]) return false;
    g[part.axis()] = (g[part.axis()] + n) % n;
  }
  return true;
}

/// Kind of the voxel at global coordinates g + shift, solid when outside a non-periodic box.
CellSpec cell_at(const SolverSetup& setup, const int (&g)[3], const std::array<int, 3>& shift) {
  int p[3];
  const int n[3] = {setup.global.nx, setup.global.ny, setup.global.nz};
  for (int a = 0; a < 3; ++a) {
    p[a] = g[a] + shift[a];
    if (p[a] < 0 || p[a] >= n[a]) {
      if (!setup.periodic[a]) return {CellKind::solid, 0};
      p[a] = (p[a] + n[a]) % n[a];
    }
  }
  return setup.geometry ? setup.geometry(p[0], p[1], p[2]) : CellSpec{};
}

}  // namespace

std::vector<flag_t> build_flags(const SlabPartition& part, const SolverSetup& setup,
                                const std::vector<std::array<int, 3>>& velocities) {
  std::vector<flag_t> out(static_cast<std::size_t>(part.local_size()), flags::make(CellKind::solid, 0, 0));
  for (index_t v = 0; v < part.local_size(); ++v) {
    int g[3];
    if (!global_coordinates(part, setup.periodic, v, g)) continue;
    const CellSpec self = setup.geometry ? setup.geometry(g[0], g[1], g[2]) : CellSpec{};
    out[static_cast<std::size_t>(v)] =
        detail::flag_word(self, setup.boundaries, velocities, [&](const std::array<int, 3>& c) {
          return cell_at(setup, g, {-c[0], -c[1], -c[2]}).kind == CellKind::solid;
        });
  }
  return out;
}

void build_initial_state(const SlabPartition& part, const SolverSetup& setup, std::vector<double>& rho,
                         std::vector<double>& u) {
  const auto n = static_cast<std::size_t>(part.local_size());
  rho.assign(n, 1.0);
  u.assign(3 * n, 0.0);
  if (!setup.initial) return;
  for (index_t v = 0; v < part.local_size(); ++v) {
    int g[3];
    if (!global_coordinates(part, setup.periodic, v, g)) continue;
    const FlowState s = setup.initial(g[0], g[1], g[2]);
    const auto k = static_cast<std::size_t>(v);
    rho[k] = s.rho;
    for (int d = 0; d < 3; ++d) u[3 * k + d] = s.u[d];
  }
}

int default_schedule_tile(int value_bytes, int transaction_bytes) {
  const int voxels = transaction_bytes / value_bytes;
  return voxels > 1 ? voxels : 1;
}

}  // namespace karman::lbm
