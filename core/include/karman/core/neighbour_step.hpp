#pragma once
/// \file neighbour_step.hpp
/// Which neighbouring part of a grid: the step -1, 0 or +1 along each axis from this part to it.
/// A slab has two (along its slab axis), a Cartesian block up to 26 (faces, edges, corners);
/// halo groups, halo plans and decompositions are keyed by it.

#include <array>
#include <string>

namespace karman {

/// The step from one part of a grid to a neighbouring part, one of {-1, 0, +1} per axis.
/// The zero step names no neighbour (the part itself: interior voxels face it).
struct NeighbourStep {
  std::array<int, 3> d{0, 0, 0};  ///< step along x, y, z

  /// The neighbour `direction` (-1 or +1) steps along `axis` (0, 1 or 2).
  static constexpr NeighbourStep along(int axis, int direction) {
    NeighbourStep s;
    s.d[axis] = direction;
    return s;
  }
  /// The step back: the neighbour's name for this part.
  constexpr NeighbourStep opposite() const { return {{-d[0], -d[1], -d[2]}}; }
  /// True for the zero step.
  constexpr bool none() const { return d[0] == 0 && d[1] == 0 && d[2] == 0; }
  /// Axes the step moves along: 1 to a face neighbour, 2 to an edge, 3 to a corner (0: none).
  constexpr int axes() const { return (d[0] != 0) + (d[1] != 0) + (d[2] != 0); }
  /// A dense number in [0, count) for tables and message tags: 13 is the zero step.
  constexpr int index() const { return (d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1); }
  /// Number of distinct steps in 3D, the zero step included.
  static constexpr int count = 27;
  /// The step whose index() is i (0 <= i < count).
  static constexpr NeighbourStep from_index(int i) { return {{i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1}}; }

  friend constexpr bool operator==(const NeighbourStep& a, const NeighbourStep& b) {
    return a.d[0] == b.d[0] && a.d[1] == b.d[1] && a.d[2] == b.d[2];
  }
  friend constexpr bool operator!=(const NeighbourStep& a, const NeighbourStep& b) { return !(a == b); }
};

/// The step as messages print it: "-z", "+x-y", "+x+y+z"; "none" for the zero step.
inline std::string to_string(const NeighbourStep& s) {
  if (s.none()) return "none";
  std::string out;
  for (int a = 0; a < 3; ++a) {
    if (s.d[a] != 0) {
      out += s.d[a] < 0 ? '-' : '+';
      out += "xyz"[a];
    }
  }
  return out;
}

}  // namespace karman
