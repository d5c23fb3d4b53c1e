#include <karman/core/error.hpp>
#include <karman/core/geometry/shapes.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace karman::geometry {
namespace {

/// Reads the remaining values of a shape line; throws naming the line unless there are exactly
/// `count` finite numbers.
std::vector<double> read_values(std::istringstream& words, std::size_t count, const std::string& at,
                                const std::string& keyword, const char* usage) {
  std::vector<double> values;
  for (std::string word; words >> word;) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || !std::isfinite(value)) {
      throw Error(at + ": '" + word + "' is not a finite number (" + keyword + " takes " + usage + ")");
    }
    values.push_back(value);
  }
  if (values.size() != count) {
    throw Error(at + ": " + keyword + " has " + std::to_string(values.size()) + " values, expected " +
                std::to_string(count) + " (" + usage + ")");
  }
  if (values.back() <= 0) {
    std::ostringstream msg;
    msg << at << ": " << keyword << " radius = " << values.back() << " must be > 0";
    throw Error(msg.str());
  }
  return values;
}

/// Paints the voxels whose centres satisfy `inside` within the voxel-index bounds [lo, hi] on
/// each axis (unwrapped; periodic axes wrap, others clip).
template <class Inside>
index_t paint_box(VoxelImage& image, const std::array<double, 3>& lo, const std::array<double, 3>& hi,
                  const std::array<bool, 3>& periodic, std::vector<index_t>* painted, const Inside& inside) {
  const Extents& e = image.extents;
  std::array<int, 3> from{}, to{};
  for (int a = 0; a < 3; ++a) {
    const int n = e.extent(a);
    // Voxel i's centre is i + 1/2: it can be inside only when lo <= i + 1/2 <= hi.
    from[a] = int(std::floor(lo[a] - 0.5));
    to[a] = int(std::ceil(hi[a] - 0.5));
    if (a == 2 && n == 1) from[a] = to[a] = 0;  // 2D: the plane z = 1/2 only
    // A periodic range may be longer than the box: a voxel is then tested at each of its
    // images, as a shape larger than the box needs.
    if (!periodic[a] || n == 1) {
      from[a] = std::max(from[a], 0);
      to[a] = std::min(to[a], n - 1);
    }
  }
  index_t added = 0;
  for (int k = from[2]; k <= to[2]; ++k) {
    for (int j = from[1]; j <= to[1]; ++j) {
      for (int i = from[0]; i <= to[0]; ++i) {
        if (!inside(i + 0.5, j + 0.5, k + 0.5)) continue;
        const auto wrap = [](int c, int n) { return ((c % n) + n) % n; };
        const index_t v = e.index(wrap(i, e.nx), wrap(j, e.ny), wrap(k, e.nz));
        if (image.solid[std::size_t(v)] != 0) continue;
        image.solid[std::size_t(v)] = 1;
        ++added;
        if (painted != nullptr) painted->push_back(v);
      }
    }
  }
  return added;
}

}  // namespace

ShapeList read_shape_list(std::istream& in, const std::string& source) {
  ShapeList shapes;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::size_t comment = line.find('#');
    if (comment != std::string::npos) line.erase(comment);
    std::istringstream words(line);
    std::string keyword;
    if (!(words >> keyword)) continue;
    const std::string at = source + ":" + std::to_string(number);
    if (keyword == "sphere") {
      const auto v = read_values(words, 4, at, keyword, "cx cy cz r");
      shapes.spheres.push_back({{v[0], v[1], v[2]}, v[3]});
    } else if (keyword == "cylinder") {
      const auto v = read_values(words, 7, at, keyword, "x0 y0 z0 x1 y1 z1 r");
      if (v[0] == v[3] && v[1] == v[4] && v[2] == v[5]) {
        throw Error(at + ": cylinder ends (x0 y0 z0) and (x1 y1 z1) coincide (its axis needs a length > 0)");
      }
      shapes.cylinders.push_back({{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, v[6]});
    } else {
      throw Error(at + ": unknown shape '" + keyword + "' (accepted: sphere, cylinder)");
    }
  }
  if (in.bad()) throw Error(source + ": read error after line " + std::to_string(number));
  return shapes;
}

ShapeList read_shape_list(const std::filesystem::path& path) {
  const std::string where = "karman::geometry::read_shape_list: shape list '" + path.string() + "'";
  // Kind and size first: /dev/zero is one line without end.
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error)) {
    throw Error(where + " is not a regular file (a device, FIFO or directory)");
  }
  const std::uintmax_t limit = std::uintmax_t(64) << 20;
  const auto bytes = std::filesystem::file_size(path, error);
  if (!error && bytes > limit) {
    throw Error(where + " holds " + std::to_string(bytes) + " bytes, more than the " + std::to_string(limit) +
                " Karman reads for a shape list");
  }
  std::ifstream in(path);
  if (!in) throw Error(where + ": cannot open it");
  return read_shape_list(in, path.string());
}

index_t paint(VoxelImage& image, const Sphere& sphere, const std::array<bool, 3>& periodic,
              std::vector<index_t>* painted) {
  const auto& c = sphere.centre;
  const double r = sphere.radius;
  return paint_box(image, {c[0] - r, c[1] - r, c[2] - r}, {c[0] + r, c[1] + r, c[2] + r}, periodic, painted,
                   [&](double x, double y, double z) {
                     const double dx = x - c[0], dy = y - c[1], dz = z - c[2];
                     return dx * dx + dy * dy + dz * dz <= r * r;
                   });
}

index_t paint(VoxelImage& image, const Cylinder& cylinder, const std::array<bool, 3>& periodic,
              std::vector<index_t>* painted) {
  const auto& a = cylinder.from;
  const auto& b = cylinder.to;
  const double r = cylinder.radius;
  const std::array<double, 3> axis = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double length2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
  std::array<double, 3> lo{}, hi{};
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::min(a[d], b[d]) - r;
    hi[d] = std::max(a[d], b[d]) + r;
  }
  return paint_box(image, lo, hi, periodic, painted, [&](double x, double y, double z) {
    const double p[3] = {x - a[0], y - a[1], z - a[2]};
    const double along = p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2];
    if (along < 0 || along > length2) return false;
    const double t = along / length2;
    const double q[3] = {p[0] - t * axis[0], p[1] - t * axis[1], p[2] - t * axis[2]};
    return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= r * r;
  });
}

VoxelImage shapes_image(const Extents& extents, double voxel_size, const ShapeList& shapes,
                        const std::array<bool, 3>& periodic) {
  VoxelImage image = fluid_image(extents, voxel_size, "karman::geometry::shapes_image");
  for (const Sphere& s : shapes.spheres) paint(image, s, periodic);
  for (const Cylinder& c : shapes.cylinders) paint(image, c, periodic);
  return image;
}

}  // namespace karman::geometry
