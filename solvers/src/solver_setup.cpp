#include <karman/lbm/dense_partition.hpp>
#include <karman/lbm/dense_setup.hpp>
#include <karman/lbm/flag_word.hpp>
#include <karman/lbm/wall_link_order.hpp>

#include <algorithm>
#include <sstream>

namespace karman::lbm {
namespace {

/// Global coordinates of local voxel v of a slab or block: its local coordinates shifted by the
/// partition's origin, wrapped where periodic. Returns false when the voxel lies outside a
/// non-periodic box (a halo past the box's side).
template <class Partition>
bool global_coordinates(const Partition& part, const std::array<bool, 3>& periodic, index_t v, int (&g)[3]) {
  const std::array<int, 3> local = part.coordinates(v), origin = part.origin();
  for (std::size_t a = 0; a < 3; ++a) {
    g[a] = local[a] + origin[a];
    const int n = part.global().extent(int(a));
    if (g[a] < 0 || g[a] >= n) {
      if (!periodic[a]) return false;
      g[a] = (g[a] + n) % n;
    }
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

/// Local index of the solid voxel whose slot i serves population i of voxel v (global
/// coordinates g) by a word copy (wall_slots.hpp), or -1 when that population is bounced by the
/// boundary kernel: a wall at rest other than the curved body, reached without leaving the box
/// or wrapping, and owned by this rank.
template <class Partition>
index_t wall_slot(const Partition& part, const SolverSetup& setup, const int (&g)[3], index_t v,
                  const std::array<int, 3>& c, const CellSpec& source) {
  if (source.kind != CellKind::solid || source.id == setup.curved_wall.id) return -1;
  const BoundaryValue& wall = setup.boundaries[source.id];
  if (wall.u[0] != 0 || wall.u[1] != 0 || wall.u[2] != 0) return -1;
  const int n[3] = {setup.global.nx, setup.global.ny, setup.global.nz};
  for (int a = 0; a < 3; ++a)
    if (g[a] - c[a] < 0 || g[a] - c[a] >= n[a]) return -1;
  // Inside the box without a wrap, x - c is the neighbour the kernels reach: one local step
  // along each axis (into the next class of a block, cartesian_neighbours.hpp). A halo voxel's
  // neighbour may lie past the local array: not owned, so bounced (halo voxels are not updated).
  const std::array<int, 3> l = part.coordinates(v);
  const int nl[3] = {part.local().nx, part.local().ny, part.local().nz};
  for (int a = 0; a < 3; ++a)
    if (l[a] - c[a] < 0 || l[a] - c[a] >= nl[a]) return -1;
  const index_t solid = part.index(l[0] - c[0], l[1] - c[1], l[2] - c[2]);
  const VoxelRange owned = part.owned();
  return solid >= owned.begin && solid < owned.end ? solid : -1;
}

}  // namespace

template <class Partition>
std::vector<flag_t> build_flags(const Partition& part, const SolverSetup& setup,
                                const std::vector<std::array<int, 3>>& velocities) {
  std::vector<flag_t> out(static_cast<std::size_t>(part.local_size()), flags::make(CellKind::solid, 0, 0));
  for (index_t v = 0; v < part.local_size(); ++v) {
    int g[3];
    if (!global_coordinates(part, setup.periodic, v, g)) continue;
    const CellSpec self = setup.geometry ? setup.geometry(g[0], g[1], g[2]) : CellSpec{};
    // A curved body's populations are pulled from its solid voxels, where the cut links' kernel
    // leaves their reflected values (curved_wall.hpp); so are those of walls at rest that a word
    // copy serves (wall_slots.hpp). The kernel bounces the rest.
    out[static_cast<std::size_t>(v)] =
        detail::flag_word(self, setup.boundaries, velocities, [&](const std::array<int, 3>& c) {
          const CellSpec source = cell_at(setup, g, {-c[0], -c[1], -c[2]});
          return source.kind == CellKind::solid && source.id != setup.curved_wall.id &&
                 wall_slot(part, setup, g, v, c, source) < 0;
        });
  }
  return out;
}

int wall_link_order(const SolverSetup& setup, const std::string& who) {
  const CurvedWall& wall = setup.curved_wall;
  const BoundaryValue& bv = setup.boundaries[wall.id];
  if (bv.u[0] != 0 || bv.u[1] != 0 || bv.u[2] != 0) {
    throw Error(who + ": the curved wall (boundary id " + std::to_string(wall.id) +
                ") moves; interpolated bounce-back is implemented for walls at rest");
  }
  if (!wall.fraction) throw Error(who + ": the curved wall has no fraction function");
  return wall.interpolation == WallInterpolation::quadratic ? 2
         : wall.interpolation == WallInterpolation::linear  ? 1
                                                            : 0;
}

std::vector<WallLink> build_wall_links(const SlabPartition& part, const SolverSetup& setup,
                                       const std::vector<std::array<int, 3>>& velocities) {
  const CurvedWall& wall = setup.curved_wall;
  std::vector<WallLink> links;
  if (wall.id < 0) return links;
  const int order = wall_link_order(setup, "karman::lbm::build_wall_links");
  const Extents& local = part.local();
  // Local index of the voxel g + k c (global coordinates g, wrapped where periodic), or -1 when
  // it lies outside this rank's box or, with `fluid_only`, is not fluid: only fluid neighbours
  // take part in an interpolation.
  auto local_at = [&](const int(&g)[3], const std::array<int, 3>& c, int k, bool fluid_only) -> index_t {
    const std::array<int, 3> shift{k * c[0], k * c[1], k * c[2]};
    if (fluid_only && cell_at(setup, g, shift).kind == CellKind::solid) return -1;
    int l[3];
    const int n[3] = {setup.global.nx, setup.global.ny, setup.global.nz};
    for (int a = 0; a < 3; ++a) l[a] = ((g[a] + shift[a]) % n[a] + n[a]) % n[a];
    l[part.axis()] -= part.owned_begin() - 1;
    if (l[part.axis()] < 0 || l[part.axis()] >= local.extent(part.axis())) return -1;
    return local.index(l[0], l[1], l[2]);
  };
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    int g[3];
    if (!global_coordinates(part, setup.periodic, v, g)) continue;
    const CellSpec self = setup.geometry(g[0], g[1], g[2]);
    if (self.kind == CellKind::solid) continue;
    for (std::size_t i = 0; i < velocities.size(); ++i) {
      const auto& c = velocities[i];
      const std::array<int, 3> back{-c[0], -c[1], -c[2]};
      const CellSpec source = cell_at(setup, g, back);
      if (source.kind != CellKind::solid || source.id != wall.id) continue;
      links.push_back(cut_link(v, local_at(g, back, 1, false), int(i),
                               wall.fraction(g[0], g[1], g[2], back[0], back[1], back[2]), local_at(g, c, 1, true),
                               local_at(g, c, 2, true), order, {g[0], g[1], g[2]}, "karman::lbm::build_wall_links"));
    }
  }
  return links;
}

template <class Partition>
std::vector<WallSlot> build_wall_slots(const Partition& part, const SolverSetup& setup,
                                       const std::vector<std::array<int, 3>>& velocities) {
  std::vector<WallSlot> slots;
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    int g[3];
    if (!global_coordinates(part, setup.periodic, v, g)) continue;
    if (cell_at(setup, g, {0, 0, 0}).kind == CellKind::solid) continue;
    for (std::size_t i = 0; i < velocities.size(); ++i) {
      const auto& c = velocities[i];
      const CellSpec source = cell_at(setup, g, {-c[0], -c[1], -c[2]});
      const index_t solid = wall_slot(part, setup, g, v, c, source);
      if (solid >= 0) slots.push_back({solid, v, int(i)});
    }
  }
  std::sort(slots.begin(), slots.end(), [](const WallSlot& a, const WallSlot& b) {
    return a.direction != b.direction ? a.direction < b.direction : a.solid < b.solid;
  });
  return slots;
}

template <class Partition>
void build_initial_state(const Partition& part, const SolverSetup& setup, std::vector<double>& rho,
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

template <class Partition>
std::vector<index_t> owned_box_order(const Partition& part) {
  const VoxelRange owned = part.owned();
  const OwnedBox box = DensePartition<Partition>::owned_box(part);
  const std::array<int, 3> origin = part.origin();
  std::vector<index_t> order(std::size_t(owned.size()));
  bool identity = true;
  for (index_t v = owned.begin; v < owned.end; ++v) {
    const std::array<int, 3> l = part.coordinates(v);
    int b[3];
    for (std::size_t a = 0; a < 3; ++a) b[a] = l[a] + origin[a] - box.begin[a];
    const index_t k = box.extents.index(b[0], b[1], b[2]);
    order[std::size_t(v - owned.begin)] = k;
    identity = identity && k == v - owned.begin;
  }
  if (identity) order.clear();
  return order;
}

template std::vector<flag_t> build_flags(const SlabPartition&, const SolverSetup&,
                                         const std::vector<std::array<int, 3>>&);
template std::vector<flag_t> build_flags(const CartesianPartition&, const SolverSetup&,
                                         const std::vector<std::array<int, 3>>&);
template std::vector<WallSlot> build_wall_slots(const SlabPartition&, const SolverSetup&,
                                                const std::vector<std::array<int, 3>>&);
template std::vector<WallSlot> build_wall_slots(const CartesianPartition&, const SolverSetup&,
                                                const std::vector<std::array<int, 3>>&);
template void build_initial_state(const SlabPartition&, const SolverSetup&, std::vector<double>&, std::vector<double>&);
template void build_initial_state(const CartesianPartition&, const SolverSetup&, std::vector<double>&,
                                  std::vector<double>&);
template std::vector<index_t> owned_box_order(const SlabPartition&);
template std::vector<index_t> owned_box_order(const CartesianPartition&);

int default_schedule_tile(int value_bytes, int tile_bytes) {
  const int voxels = tile_bytes / value_bytes;
  return voxels > 1 ? voxels : 1;
}

}  // namespace karman::lbm
