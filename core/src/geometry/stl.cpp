#include <karman/core/error.hpp>
#include <karman/core/geometry/stl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace karman::geometry {
namespace {

/// Binary STL: 80-byte header, uint32 count, then per triangle 12 little-endian floats
/// (normal, three vertices) and a 2-byte attribute.
std::vector<Triangle> read_binary(std::ifstream& in, std::uint32_t count) {
  std::vector<Triangle> triangles(count);
  in.seekg(84);
  char record[50];
  for (auto& t : triangles) {
    in.read(record, sizeof record);
    for (int v = 0; v < 3; ++v)
      for (int d = 0; d < 3; ++d) {
        float value;
        std::memcpy(&value, record + 12 + 12 * v + 4 * d, 4);
        t.vertices[std::size_t(v)][std::size_t(d)] = value;
      }
  }
  return triangles;
}

std::vector<Triangle> read_ascii(std::ifstream& in, const std::string& where) {
  std::vector<Triangle> triangles;
  Triangle current;
  int vertices = 0, number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream words(line);
    std::string keyword;
    if (!(words >> keyword)) continue;
    const std::string at = where + ":" + std::to_string(number);
    if (keyword == "vertex") {
      if (vertices == 3) throw Error(at + ": a facet has more than 3 vertices");
      auto& v = current.vertices[std::size_t(vertices++)];
      if (!(words >> v[0] >> v[1] >> v[2]) || !std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
        throw Error(at + ": 'vertex' needs 3 finite numbers");
      }
    } else if (keyword == "endfacet") {
      if (vertices != 3) throw Error(at + ": a facet has " + std::to_string(vertices) + " vertices, expected 3");
      triangles.push_back(current);
      vertices = 0;
    } else if (keyword != "solid" && keyword != "facet" && keyword != "outer" && keyword != "endloop" &&
               keyword != "endsolid") {
      throw Error(at + ": unknown keyword '" + keyword +
                  "' (accepted: solid, facet, outer, vertex, endloop, endfacet, endsolid)");
    }
  }
  return triangles;
}

}  // namespace

std::vector<Triangle> read_stl(const std::filesystem::path& path) {
  const std::string where = "karman::geometry::read_stl('" + path.string() + "')";
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw Error(where + (std::filesystem::exists(path, error) ? ": not a regular file (a device, FIFO or directory)"
                                                              : ": no such file"));
  }
  const auto bytes = std::filesystem::file_size(path, error);
  std::ifstream in(path, std::ios::binary);
  if (error || !in) throw Error(where + ": cannot open it");
  // An ASCII surface is read line by line to its end: a bound keeps a mistaken file from
  // taking the memory of the run (4 GiB: 80 million binary triangles).
  const std::uintmax_t limit = std::uintmax_t(4) << 30;
  if (bytes > limit) {
    throw Error(where + ": " + std::to_string(bytes) + " bytes, more than the " + std::to_string(limit) +
                " Karman reads for a surface");
  }
  // A binary file's size is fixed by its count; an ASCII file matching it by chance would need
  // its 81st to 84th characters to spell exactly that count.
  std::vector<Triangle> triangles;
  char head[84] = {};
  in.read(head, sizeof head);
  std::uint32_t count = 0;
  std::memcpy(&count, head + 80, 4);
  if (in.gcount() == 84 && bytes == 84 + 50 * std::uintmax_t(count)) {
    triangles = read_binary(in, count);
  } else if (std::string(head, std::size_t(in.gcount())).rfind("solid", 0) == 0) {
    in.clear();
    in.seekg(0);
    triangles = read_ascii(in, path.string());
  } else {
    throw Error(where + ": neither a binary STL (" + std::to_string(bytes) +
                " bytes is not 84 + 50 x its triangle count) nor an ASCII one (starting 'solid')");
  }
  if (triangles.empty()) throw Error(where + ": the surface has no triangles");
  return triangles;
}

VoxelImage voxelise(const std::vector<Triangle>& surface, const Extents& extents, const StlPlacement& placement,
                    StlInside inside) {
  const char* where = "karman::geometry::voxelise";
  validate(extents, where);
  require_in_range(where, "nz (an STL surface needs a 3D image)", extents.nz, 2, 1 << 20);
  check_voxel_size(placement.voxel_size, where);
  VoxelImage image = fluid_image(extents, placement.voxel_size, where);
  // Rays along x at (y, z) = (j + 1/2 + dy, k + 1/2 + dz) in voxel units: the small irrational
  // offsets keep rays off edges and vertices, whose crossings would otherwise count twice.
  const double dy = 1.0e-6 * std::sqrt(2.0), dz = 1.0e-6 * std::sqrt(3.0);
  const auto to_voxel = [&](const std::array<double, 3>& p) {
    std::array<double, 3> q{};
    for (int d = 0; d < 3; ++d)
      q[std::size_t(d)] = (p[std::size_t(d)] - placement.origin[std::size_t(d)]) / placement.voxel_size;
    return q;
  };
  // Crossings of each row (j, k) with the surface, binned triangle by triangle.
  std::vector<std::vector<double>> crossings(std::size_t(extents.ny) * std::size_t(extents.nz));
  for (const Triangle& t : surface) {
    const auto a = to_voxel(t.vertices[0]), b = to_voxel(t.vertices[1]), c = to_voxel(t.vertices[2]);
    const double ylo = std::min({a[1], b[1], c[1]}), yhi = std::max({a[1], b[1], c[1]});
    const double zlo = std::min({a[2], b[2], c[2]}), zhi = std::max({a[2], b[2], c[2]});
    const int j0 = std::max(0, int(std::ceil(ylo - 0.5 - dy))),
              j1 = std::min(extents.ny - 1, int(std::floor(yhi - 0.5 - dy)));
    const int k0 = std::max(0, int(std::ceil(zlo - 0.5 - dz))),
              k1 = std::min(extents.nz - 1, int(std::floor(zhi - 0.5 - dz)));
    // Barycentric coordinates of the ray's (y, z) in the triangle's projection onto the yz plane.
    const double det = (b[1] - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (b[2] - a[2]);
    if (det == 0) continue;  // seen edge-on by the rays: never crossed
    for (int k = k0; k <= k1; ++k) {
      for (int j = j0; j <= j1; ++j) {
        const double y = j + 0.5 + dy, z = k + 0.5 + dz;
        const double u = ((y - a[1]) * (c[2] - a[2]) - (c[1] - a[1]) * (z - a[2])) / det;
        const double v = ((b[1] - a[1]) * (z - a[2]) - (y - a[1]) * (b[2] - a[2])) / det;
        if (u < 0 || v < 0 || u + v > 1) continue;
        crossings[std::size_t(j) + std::size_t(extents.ny) * std::size_t(k)].push_back(a[0] + u * (b[0] - a[0]) +
                                                                                       v * (c[0] - a[0]));
      }
    }
  }
  const std::uint8_t inside_value = inside == StlInside::solid ? 1 : 0;
  for (int k = 0; k < extents.nz; ++k) {
    for (int j = 0; j < extents.ny; ++j) {
      auto& row = crossings[std::size_t(j) + std::size_t(extents.ny) * std::size_t(k)];
      if (row.size() % 2 != 0) {
        throw Error(std::string(where) + ": the surface is not closed: the row of voxels at j = " + std::to_string(j) +
                    ", k = " + std::to_string(k) + " crosses it " + std::to_string(row.size()) +
                    " times (an odd number); inside and outside are undefined");
      }
      std::sort(row.begin(), row.end());
      for (int i = 0; i < extents.nx; ++i) {
        const double x = i + 0.5;
        const auto before = std::upper_bound(row.begin(), row.end(), x) - row.begin();
        image.solid[std::size_t(extents.index(i, j, k))] =
            before % 2 == 1 ? inside_value : std::uint8_t(1 - inside_value);
      }
    }
  }
  return image;
}

}  // namespace karman::geometry
