#pragma once
/// \file lagrangian_markers.hpp
/// The Lagrangian markers of an immersed body (Chen et al. §3.1, "solid samples"): points on its
/// surface, each with the area (the arc length in 2D) it stands for, in Morton order (Chen et
/// al. §4.2.2, Fig. 7c) so that the consecutive threads of one warp read neighbouring voxels.

#include <karman/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace karman::lbm {

/// The Morton (Z-order) code of a cell (x, y, z), 21 bits each: their bits interleaved, x lowest.
inline std::uint64_t morton_code(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  auto spread = [](std::uint64_t v) {
    // Inserts two zero bits between consecutive bits of the lowest 21 bits of v.
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffff;
    v = (v | v << 16) & 0x1f0000ff0000ff;
    v = (v | v << 8) & 0x100f00f00f00f00f;
    v = (v | v << 4) & 0x10c30c30c30c30c3;
    v = (v | v << 2) & 0x1249249249249249;
    return v;
  };
  return spread(x) | spread(y) << 1 | spread(z) << 2;
}

/// The permutation that puts points (voxel coordinates, >= -1) in Morton order of the voxels
/// holding them; points of one voxel keep their order.
inline std::vector<std::size_t> morton_order(const std::vector<std::array<double, 3>>& points) {
  std::vector<std::uint64_t> code(points.size());
  for (std::size_t m = 0; m < points.size(); ++m) {
    std::uint32_t cell[3];
    for (int d = 0; d < 3; ++d) {
      // Shifted by 1 so that markers half a voxel outside the box still get a cell.
      const double c = std::floor(points[m][std::size_t(d)]) + 1.0;
      cell[d] = c <= 0 ? 0u : std::uint32_t(std::min(c, double(0x1fffff)));
    }
    code[m] = morton_code(cell[0], cell[1], cell[2]);
  }
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return code[a] < code[b]; });
  return order;
}

/// Markers of a body as given on the host: reference positions (global voxel coordinates at
/// time 0; voxel i of the box sits at coordinate i) and the area each stands for, in voxel
/// units (arc length in 2D, where the body is one voxel thick).
struct MarkerSet {
  std::vector<std::array<double, 3>> position;
  std::vector<double> area;

  std::size_t size() const { return position.size(); }
  /// Throws karman::Error unless position and area have one entry per marker, areas positive.
  void validate() const {
    if (area.size() != position.size()) {
      throw Error("karman::lbm::MarkerSet: " + std::to_string(position.size()) + " positions but " +
                  std::to_string(area.size()) + " areas");
    }
    for (std::size_t m = 0; m < area.size(); ++m) {
      if (!(area[m] > 0 && std::isfinite(area[m])))
        throw Error("karman::lbm::MarkerSet: area of marker " + std::to_string(m) + " = " + std::to_string(area[m]) +
                    " out of range (0, inf)");
    }
  }
  /// The same markers in Morton order (morton_order()).
  MarkerSet sorted() const {
    const auto order = morton_order(position);
    MarkerSet s;
    for (std::size_t k : order) {
      s.position.push_back(position[k]);
      s.area.push_back(area[k]);
    }
    return s;
  }
};

/// `count` markers evenly around the circle of centre (cx, cy) and `radius` in the plane z = cz,
/// each standing for an arc of 2 pi radius / count.
inline MarkerSet circle_markers(double cx, double cy, double cz, double radius, int count) {
  require_in_range("karman::lbm::circle_markers", "count", count, 3, 1 << 24);
  MarkerSet s;
  const double two_pi = 6.28318530717958647692;
  for (int m = 0; m < count; ++m) {
    const double a = two_pi * m / count;
    s.position.push_back({cx + radius * std::cos(a), cy + radius * std::sin(a), cz});
    s.area.push_back(two_pi * radius / count);
  }
  return s;
}

/// The markers on the device, in the order of their threads.
template <class MemorySpace>
struct LagrangianMarkers {
  using vector_view = Kokkos::View<double* [3], Kokkos::LayoutLeft, MemorySpace>;
  vector_view reference;  ///< position at time 0
  vector_view position;   ///< position now
  vector_view velocity;   ///< the body's velocity at the marker now
  vector_view force;      ///< force density on the fluid, summed over the forcing iterations
  vector_view increment;  ///< the force density of the current forcing iteration
  Kokkos::View<double*, MemorySpace> area;

  LagrangianMarkers() = default;
  /// Uploads `set` as it is (sort it first for Morton order).
  explicit LagrangianMarkers(const MarkerSet& set)
      : reference("karman::marker_reference", set.size()),
        position("karman::marker_position", set.size()),
        velocity("karman::marker_velocity", set.size()),
        force("karman::marker_force", set.size()),
        increment("karman::marker_force_increment", set.size()),
        area("karman::marker_area", set.size()) {
    set.validate();
    auto ref = Kokkos::create_mirror_view(reference);
    auto a = Kokkos::create_mirror_view(area);
    for (std::size_t m = 0; m < set.size(); ++m) {
      for (int d = 0; d < 3; ++d) ref(m, d) = set.position[m][std::size_t(d)];
      a(m) = set.area[m];
    }
    Kokkos::deep_copy(reference, ref);
    Kokkos::deep_copy(position, reference);
    Kokkos::deep_copy(area, a);
  }
  std::size_t size() const { return area.extent(0); }
};

}  // namespace karman::lbm
