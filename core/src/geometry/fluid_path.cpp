#include <karman/core/error.hpp>
#include <karman/core/geometry/fluid_path.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace karman::geometry {

bool has_fluid_path(const VoxelImage& image, int axis, const std::array<bool, 3>& periodic) {
  const Extents& e = image.extents;
  const int dimension = e.dimension();
  require_in_range("karman::geometry::has_fluid_path", "flow axis", axis, 0, dimension - 1);
  const int last = e.extent(axis) - 1;
  // Level-synchronous breadth-first search: memory is the visited bytes plus two fronts, which
  // in a porous sample stay near a plane's size rather than the volume's.
  std::vector<std::uint8_t> visited(image.solid.size(), 0);
  std::vector<index_t> front, next;
  for (int k = 0; k < e.nz; ++k) {
    for (int j = 0; j < e.ny; ++j) {
      for (int i = 0; i < e.nx; ++i) {
        const int c[3] = {i, j, k};
        const index_t v = e.index(i, j, k);
        if (c[axis] == 0 && image.solid[std::size_t(v)] == 0) {
          visited[std::size_t(v)] = 1;
          front.push_back(v);
        }
      }
    }
  }
  while (!front.empty()) {
    next.clear();
    for (const index_t v : front) {
      const int c[3] = {int(v % e.nx), int(v / e.nx % e.ny), int(v / (index_t(e.nx) * e.ny))};
      if (c[axis] == last) return true;
      for (int a = 0; a < dimension; ++a) {
        for (int step = -1; step <= 1; step += 2) {
          int n[3] = {c[0], c[1], c[2]};
          n[a] += step;
          const int size = e.extent(a);
          if (n[a] < 0 || n[a] >= size) {
            // The flow axis never wraps: a path must cross the sample from inlet to outlet.
            if (a == axis || !periodic[a]) continue;
            n[a] = (n[a] + size) % size;
          }
          const index_t u = e.index(n[0], n[1], n[2]);
          if (visited[std::size_t(u)] != 0 || image.solid[std::size_t(u)] != 0) continue;
          visited[std::size_t(u)] = 1;
          next.push_back(u);
        }
      }
    }
    front.swap(next);
  }
  return false;
}

void require_fluid_path(const VoxelImage& image, int axis, const std::array<bool, 3>& periodic, const char* where) {
  const index_t fluid = image.fluid_voxels();
  if (fluid == 0) {
    throw Error(std::string(where) + ": the sample is all solid (porosity 0 of " + std::to_string(image.solid.size()) +
                " voxels; at least one fluid voxel needed)");
  }
  if (!has_fluid_path(image, axis, periodic)) {
    std::ostringstream msg;
    msg << where << ": no fluid path along "
        << "xyz"[axis] << " from inlet plane 0 to outlet plane " << image.extents.extent(axis) - 1 << " (porosity "
        << image.porosity() << "; the fluid does not percolate, so no flow can cross the sample)";
    throw Error(msg.str());
  }
}

}  // namespace karman::geometry
