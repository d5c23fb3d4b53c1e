#pragma once
// A stencil code as a Karman user writes it (issue 55, "one boundary meaning on every grid"):
// explicit diffusion of one scalar with the 5/7-point (StencilReach::faces) or 9/27-point
// stencil, its halos filled by stencil_halo_plan and an exchanger, its closed sides by
// fill_closed_halos, and the same update on the whole box on the host, where past each side the
// box wraps (periodic) or reads the wall value. Both sum the same neighbours in the same order,
// so a rank's owned voxels agree with the whole-box answer bitwise when the boundaries mean
// the same.

#include <karman/core/cartesian/cartesian_neighbours.hpp>
#include <karman/core/closed_halos.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/global_coordinates.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/stencil_halo_plan.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace karman::test {

using StencilField = Field<double, SoA, Kokkos::HostSpace>;
constexpr double wall_value = 3.0;  // what a closed side holds: far from the initial values
constexpr double rate = 0.05;

/// The initial value at global (x, y, z): exact in binary, different on every voxel of a small box.
KOKKOS_INLINE_FUNCTION double initial(int x, int y, int z) { return double((x * 7 + y * 13 + z * 29) % 31) / 32.0; }

/// Whether the stencil reaches the neighbour (cx, cy, cz), and how many neighbours it has.
KOKKOS_INLINE_FUNCTION bool reaches(StencilReach reach, int cx, int cy, int cz) {
  const int axes = (cx != 0) + (cy != 0) + (cz != 0);
  return axes > 0 && (reach == StencilReach::faces_edges_corners || axes == 1);
}

/// One update: in + rate * (sum of the neighbours the reach names - their count * in), the
/// neighbours summed z, y, x outermost to innermost.
template <int Dim, class Read>
KOKKOS_INLINE_FUNCTION double update(StencilReach reach, double centre, const Read& read) {
  double sum = 0.0;
  int count = 0;
  for (int cz = (Dim == 3 ? -1 : 0); cz <= (Dim == 3 ? 1 : 0); ++cz)
    for (int cy = -1; cy <= 1; ++cy)
      for (int cx = -1; cx <= 1; ++cx) {
        if (!reaches(reach, cx, cy, cz)) continue;
        sum += read(cx, cy, cz);
        ++count;
      }
  return centre + rate * (sum - count * centre);
}

template <int Dim>
struct Diffuse {
  StencilField::const_type in;
  StencilField out;
  CartesianTopology topo;
  StencilReach reach;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const CartesianNeighbours<Dim> nb(v, topo);
    out(v, 0) = update<Dim>(reach, in(v, 0), [&](int cx, int cy, int cz) { return in(nb.at(cx, cy, cz), 0); });
  }
};

/// `steps` updates of the stencil on `part`'s block, its halos filled by `exchanger` through
/// stencil_halo_plan and by fill_closed_halos; returns (global index x fastest, value) of every
/// owned voxel.
template <int Dim, class Exchanger>
std::vector<std::pair<index_t, double>> run_on_block(const CartesianPartition& part, Exchanger& exchanger,
                                                     StencilReach reach, int steps) {
  StencilField a("a", part.groups(), 1), b("b", part.groups(), 1);
  const auto coords = global_coordinates(part);
  const Kokkos::DefaultHostExecutionSpace space;
  for_each(
      "initial", part.owned(), space, KOKKOS_LAMBDA(index_t v) {
        const Kokkos::Array<int, 3> g = coords(v);
        a(v, 0) = initial(g[0], g[1], g[2]);
      });
  fill_closed_halos(a, part, wall_value, space);
  fill_closed_halos(b, part, wall_value, space);
  const HaloPlan plan = stencil_halo_plan(part, 1, reach);
  const CartesianTopology topo = CartesianTopology::of(part);
  for (int s = 0; s < steps; ++s) {
    exchanger.start(a, plan);
    exchanger.finish();
    for_each("diffuse", part.owned(), space, Diffuse<Dim>{a, b, topo, reach});
    space.fence();
    std::swap(a, b);
  }
  std::vector<std::pair<index_t, double>> out;
  const Extents& g = part.global();
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    const Kokkos::Array<int, 3> c = coords(v);
    out.emplace_back(g.index(c[0], c[1], c[2]), a(v, 0));
  }
  return out;
}

/// The same `steps` updates on the whole box `global`, on the host: past a side the box wraps
/// where `periodic`, and reads wall_value elsewhere. Indexed x fastest.
template <int Dim>
std::vector<double> run_on_box(const Extents& global, const std::array<bool, 3>& periodic, StencilReach reach,
                               int steps) {
  std::vector<double> a(std::size_t(global.size())), b(a.size());
  const int n[3] = {global.nx, global.ny, global.nz};
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) a[std::size_t(global.index(x, y, z))] = initial(x, y, z);
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < n[2]; ++z)
      for (int y = 0; y < n[1]; ++y)
        for (int x = 0; x < n[0]; ++x) {
          const auto read = [&](int cx, int cy, int cz) {
            int p[3] = {x + cx, y + cy, z + cz};
            for (int k = 0; k < 3; ++k) {
              if (p[k] >= 0 && p[k] < n[k]) continue;
              if (!periodic[std::size_t(k)]) return wall_value;
              p[k] = (p[k] + n[k]) % n[k];
            }
            return a[std::size_t(global.index(p[0], p[1], p[2]))];
          };
          b[std::size_t(global.index(x, y, z))] = update<Dim>(reach, a[std::size_t(global.index(x, y, z))], read);
        }
    std::swap(a, b);
  }
  return a;
}

/// Empty when every owned value equals the whole box's, bitwise; else the first differences.
inline std::string compare(const std::vector<std::pair<index_t, double>>& block, const std::vector<double>& box) {
  std::ostringstream report;
  int wrong = 0;
  for (const auto& [global, value] : block) {
    if (value == box[std::size_t(global)]) continue;
    if (wrong++ < 4)
      report << "(global voxel " << global << "): " << value << ", whole box " << box[std::size_t(global)] << "; ";
  }
  if (wrong > 0) report << wrong << " of " << block.size() << " owned voxels differ";
  return report.str();
}

}  // namespace karman::test
