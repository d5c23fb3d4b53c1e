#include <karman/core/error.hpp>
#include <karman/core/geometry/sphere_pack.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

namespace karman::geometry {
namespace {

constexpr double pi = 3.14159265358979323846;

/// Uniform double in [0, 1) from the top 53 bits of one mt19937_64 draw: the same on every
/// platform, unlike std::uniform_real_distribution.
double uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

/// Voxels of one sphere of radius r (a disc in 2D): how far one sphere moves the porosity.
double sphere_voxels(double r, int dimension) { return dimension == 3 ? 4.0 / 3.0 * pi * r * r * r : pi * r * r; }

void check_period(const Extents& extents, int period, const char* where) {
  validate(extents, where);
  const int smallest =
      extents.dimension() == 3 ? std::min({extents.nx, extents.ny, extents.nz}) : std::min(extents.nx, extents.ny);
  require_in_range(where, "period", period, 2, smallest);
  for (int a = 0; a < extents.dimension(); ++a) {
    if (extents.extent(a) % period != 0) {
      throw Error(std::string(where) + ": extent along " + "xyz"[a] + " = " + std::to_string(extents.extent(a)) +
                  " is not a multiple of the period " + std::to_string(period) +
                  " (the box must hold whole cells to be periodic)");
    }
  }
}

/// Porosity of one cell of the array: that of the whole periodic array.
double cell_porosity(int period, int dimension, double radius) {
  const Extents cell{period, period, dimension == 3 ? period : 1};
  VoxelImage image{cell, 1.0, std::vector<std::uint8_t>(std::size_t(cell.size()), 0)};
  const double c = 0.5 * period;
  paint(image, Sphere{{c, c, dimension == 3 ? c : 0.5}, radius}, {true, true, dimension == 3});
  return image.porosity();
}

}  // namespace

SpherePack random_sphere_pack(const Extents& extents, const RandomPackOptions& options) {
  const char* where = "karman::geometry::random_sphere_pack";
  validate(extents, where);
  check_voxel_size(options.voxel_size, where);
  require_in_range(where, "porosity", options.porosity, 0.01, 1.0);
  const int dimension = extents.dimension();
  const double smallest =
      dimension == 3 ? std::min({extents.nx, extents.ny, extents.nz}) : std::min(extents.nx, extents.ny);
  require_in_range(where, "radius_min", options.radius_min, 0.5, 0.5 * smallest);
  require_in_range(where, "radius_max", options.radius_max, options.radius_min, 0.5 * smallest);

  SpherePack pack{fluid_image(extents, options.voxel_size, where), {}, 1.0};
  const index_t voxels = extents.size();
  const double target_fluid = options.porosity * double(voxels);
  index_t fluid = voxels;
  // Overlapping spheres leave a fraction exp(-n v / V) fluid on average: a hundred times the
  // spheres the target needs on average cannot fail but for a bug or a target below 1%.
  const double mean_volume = sphere_voxels(0.5 * (options.radius_min + options.radius_max), dimension);
  const double needed = -std::log(std::max(options.porosity, 1e-3)) * double(voxels) / mean_volume;
  const std::size_t max_spheres = std::size_t(100.0 * needed) + 100;
  std::mt19937_64 rng(options.seed);
  std::vector<index_t> last;
  while (double(fluid) > target_fluid) {
    if (pack.spheres.size() >= max_spheres) {
      std::ostringstream msg;
      msg << where << ": porosity " << double(fluid) / double(voxels) << " after " << max_spheres
          << " spheres, still above the target " << options.porosity;
      throw Error(msg.str());
    }
    Sphere s;
    for (int a = 0; a < 3; ++a) s.centre[a] = uniform(rng) * extents.extent(a);
    if (dimension == 2) s.centre[2] = 0.5;
    s.radius = options.radius_min + uniform(rng) * (options.radius_max - options.radius_min);
    last.clear();
    fluid -= paint(pack.image, s, options.periodic, &last);
    pack.spheres.push_back(s);
  }
  // Keep the last sphere only if that lands closer to the target.
  const double with_last = target_fluid - double(fluid);
  const double without_last = double(fluid + index_t(last.size())) - target_fluid;
  if (!pack.spheres.empty() && without_last < with_last) {
    for (const index_t v : last) pack.image.solid[std::size_t(v)] = 0;
    fluid += index_t(last.size());
    pack.spheres.pop_back();
  }
  pack.porosity = double(fluid) / double(voxels);
  return pack;
}

SpherePack simple_cubic_array(const Extents& extents, int period, double radius, double voxel_size) {
  const char* where = "karman::geometry::simple_cubic_array";
  check_period(extents, period, where);
  const int dimension = extents.dimension();
  // Beyond half the cell diagonal every voxel is solid.
  require_in_range(where, "radius", radius, 0.0, 0.5 * period * std::sqrt(double(dimension)));
  SpherePack pack{fluid_image(extents, voxel_size, where), {}, 1.0};
  const std::array<bool, 3> periodic = {true, true, dimension == 3};
  const int cz = dimension == 3 ? extents.nz / period : 1;
  for (int k = 0; k < cz; ++k) {
    for (int j = 0; j < extents.ny / period; ++j) {
      for (int i = 0; i < extents.nx / period; ++i) {
        const Sphere s{{(i + 0.5) * period, (j + 0.5) * period, dimension == 3 ? (k + 0.5) * period : 0.5}, radius};
        if (radius > 0) paint(pack.image, s, periodic);
        pack.spheres.push_back(s);
      }
    }
  }
  pack.porosity = pack.image.porosity();
  return pack;
}

SpherePack simple_cubic_array_at_porosity(const Extents& extents, int period, double porosity, double voxel_size) {
  const char* where = "karman::geometry::simple_cubic_array_at_porosity";
  check_period(extents, period, where);
  require_in_range(where, "porosity", porosity, 0.01, 1.0);
  const int dimension = extents.dimension();
  // The voxelised porosity falls in steps as the radius grows: bisect to the step edges around
  // the target, then take whichever side is closer.
  double lo = 0, hi = 0.5 * period * std::sqrt(double(dimension));
  for (int iteration = 0; iteration < 60; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    (cell_porosity(period, dimension, mid) > porosity ? lo : hi) = mid;
  }
  const double below = cell_porosity(period, dimension, hi), above = cell_porosity(period, dimension, lo);
  const double radius = std::abs(below - porosity) < std::abs(above - porosity) ? hi : lo;
  return simple_cubic_array(extents, period, radius, voxel_size);
}

}  // namespace karman::geometry
