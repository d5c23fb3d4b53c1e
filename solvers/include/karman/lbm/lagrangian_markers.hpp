#pragma once
/// \file lagrangian_markers.hpp
/// The Lagrangian markers of an immersed body (Chen et al. §3.1, "solid samples"): points on its
/// surface, each with the area (the arc length in 2D) it stands for, ordered so that the
/// consecutive threads of one warp read neighbouring voxels (Chen et al. §4.2.2, Fig. 7c): by
/// blocks of l^3 voxels in x-y-z order and in Morton order within a block, or in Morton order
/// over the whole box.

#include <karman/core/error.hpp>
#include <karman/core/morton.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace karman::lbm {

/// The block size l of marker_order() used unless a case says otherwise: measured best (or within
/// 1.4 % of it) for 10^6 markers on the H100 with every CSoA alpha and SoA (docs/performance.md,
/// "joint (l, alpha) search"); for 10^4 markers l changes the step by 2 % at most.
inline constexpr int default_marker_block = 2;

/// The voxel holding point p (voxel coordinates, >= -1), shifted by 1 so that markers half a
/// voxel outside the box still get one, clamped to the 21 bits of a Morton coordinate.
inline std::array<std::uint32_t, 3> marker_cell(const std::array<double, 3>& p) {
  std::array<std::uint32_t, 3> cell{};
  for (std::size_t d = 0; d < 3; ++d) {
    const double c = std::floor(p[d]) + 1.0;
    cell[d] = c <= 0 ? 0u : std::uint32_t(std::min(c, double(0x1fffff)));
  }
  return cell;
}

/// The permutation that orders points (voxel coordinates, >= -1) as Chen et al. §4.2.2 do with
/// block size `block` = l: the bounding box of the points' voxels is cut into blocks of l^3
/// voxels (l^2 in 2D), blocks follow in x-y-z order (x fastest, as voxels are stored), and
/// within a block points follow the Morton order of their voxels. `block` = 0 is Morton order
/// over the whole box. Points of one voxel keep their order.
inline std::vector<std::size_t> marker_order(const std::vector<std::array<double, 3>>& points, int block = 0) {
  require_in_range("karman::lbm::marker_order", "block", block, 0, 1 << 20);
  std::vector<std::array<std::uint32_t, 3>> cell(points.size());
  std::array<std::uint32_t, 3> low{0x1fffff, 0x1fffff, 0x1fffff}, high{0, 0, 0};
  for (std::size_t m = 0; m < points.size(); ++m) {
    cell[m] = marker_cell(points[m]);
    for (std::size_t d = 0; d < 3; ++d) {
      low[d] = std::min(low[d], cell[m][d]);
      high[d] = std::max(high[d], cell[m][d]);
    }
  }
  // Key: (block index in x-y-z order, Morton code of the voxel within its block).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> key(points.size());
  for (std::size_t m = 0; m < points.size(); ++m) {
    if (block == 0) {
      key[m] = {0, morton_code(cell[m][0], cell[m][1], cell[m][2])};
      continue;
    }
    const auto l = std::uint32_t(block);
    std::uint64_t index = 0;
    std::uint32_t within[3];
    for (int d = 2; d >= 0; --d) {
      const std::uint32_t offset = cell[m][std::size_t(d)] - low[std::size_t(d)];
      index = index * ((high[std::size_t(d)] - low[std::size_t(d)]) / l + 1) + offset / l;
      within[d] = offset % l;
    }
    key[m] = {index, morton_code(within[0], within[1], within[2])};
  }
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
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
  /// The same markers in the order of marker_order(position, block).
  MarkerSet sorted(int block = 0) const {
    const auto order = marker_order(position, block);
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

/// `count` markers spread evenly over the sphere of centre c and `radius` (the Fibonacci
/// lattice: equal-area bands in z, successive markers turned by the golden angle; Gonzalez,
/// Math. Geosci. 42, 49 (2010)), each standing for 4 pi radius^2 / count.
inline MarkerSet sphere_markers(const std::array<double, 3>& c, double radius, int count) {
  require_in_range("karman::lbm::sphere_markers", "count", count, 4, 1 << 24);
  MarkerSet s;
  const double pi = 3.14159265358979323846, golden_angle = pi * (3.0 - std::sqrt(5.0));
  for (int m = 0; m < count; ++m) {
    const double z = 1.0 - (2.0 * m + 1.0) / count, ring = std::sqrt(1.0 - z * z), a = golden_angle * m;
    s.position.push_back({c[0] + radius * ring * std::cos(a), c[1] + radius * ring * std::sin(a), c[2] + radius * z});
    s.area.push_back(4.0 * pi * radius * radius / count);
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
  /// Uploads `set` as it is (sort it first: MarkerSet::sorted).
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
