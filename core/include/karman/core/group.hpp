#pragma once
/// \file group.hpp
/// Voxel groups of a partition: consecutive ranges of local voxel indices, each with a role and
/// the neighbour it faces (Meneghin & Mahmoud §III, Fig. 5b). A slab has five (halo, shared,
/// interior, shared, halo along its axis); a Cartesian block up to 53 (26 halo groups, 26
/// shared groups by face, edge and corner, one interior); a block-sparse grid may split its
/// voxels into boundary and interior groups. Layouts that store groups apart (Disaggregated)
/// and halo plans read this one table.

#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/neighbour_step.hpp>

#include <array>
#include <string>
#include <string_view>

namespace karman {

/// Role of a group. *shared* voxels are owned voxels a neighbour's stencil reads (and whose
/// own stencil reads the halo); *interior* voxels read owned data only; *halo* voxels are
/// copies of a neighbour's shared voxels.
enum class GroupRole : int { halo = 0, shared = 1, interior = 2 };

/// Name of a role as used in messages and output.
constexpr std::string_view name(GroupRole r) {
  return r == GroupRole::halo ? "halo" : r == GroupRole::shared ? "shared" : "interior";
}

/// A half-open range [begin, end) of linear voxel indices.
struct VoxelRange {
  index_t begin = 0;  ///< first voxel
  index_t end = 0;    ///< one past the last voxel

  /// Number of voxels in the range.
  KOKKOS_INLINE_FUNCTION index_t size() const { return end - begin; }
  /// True when the range holds no voxel.
  KOKKOS_INLINE_FUNCTION bool empty() const { return end <= begin; }

  friend bool operator==(const VoxelRange& a, const VoxelRange& b) { return a.begin == b.begin && a.end == b.end; }
};

/// A half-open range [begin, end) of field components (populations for LBM).
struct ComponentRange {
  int begin = 0;  ///< first component
  int end = 0;    ///< one past the last component

  /// Number of components in the range.
  int size() const { return end - begin; }
};

/// One group: its voxels, its role and the neighbour it faces. A halo group copies the
/// neighbour `towards`; a shared group lies along the face, edge or corner `towards` of the
/// owned voxels; the interior faces none.
struct GroupInfo {
  GroupRole role = GroupRole::interior;
  NeighbourStep towards{};
  VoxelRange range{};

  friend bool operator==(const GroupInfo& a, const GroupInfo& b) {
    return a.role == b.role && a.towards == b.towards && a.range == b.range;
  }
};

/// Most groups a partition of the core has: a Cartesian block cut along three axes, with 26
/// halo groups, 26 shared groups (faces, edges, corners) and its interior.
inline constexpr int max_partition_groups = 2 * (NeighbourStep::count - 1) + 1;

/// The groups of a partition in memory order; consecutive, covering [0, total()).
/// Trivially copyable with a fixed capacity, so a host handle to it is cheap and no
/// allocation is needed (kernels never see it: layouts copy what they need).
class GroupTable {
 public:
  /// Most groups a table holds: a Cartesian block's 26 halo and 26 shared groups and its
  /// interior fit.
  static constexpr int capacity = 64;

  /// Appends a group of `voxels` voxels after the last; returns its index. Empty groups are
  /// kept (a slab's interior may be empty).
  int add(GroupRole role, NeighbourStep towards, index_t voxels) {
    if (m_count == capacity) {
      throw Error("karman::GroupTable: more than " + std::to_string(capacity) + " groups");
    }
    if (voxels < 0) throw Error("karman::GroupTable: a group of " + std::to_string(voxels) + " voxels");
    if (find(role, towards) >= 0) {
      throw Error("karman::GroupTable: a second " + std::string(name(role)) + " group towards " + to_string(towards));
    }
    m_groups[m_count] = {role, towards, {total(), total() + voxels}};
    return m_count++;
  }

  /// Number of groups.
  int size() const { return m_count; }
  /// Group g (0 <= g < size()).
  const GroupInfo& operator[](int g) const { return m_groups[checked(g)]; }
  /// Voxels of group g.
  VoxelRange range(int g) const { return m_groups[checked(g)].range; }
  /// Voxels in all groups together.
  index_t total() const { return m_count == 0 ? 0 : m_groups[m_count - 1].range.end; }
  /// Index of the group of `role` facing `towards`, or -1 when there is none.
  int find(GroupRole role, NeighbourStep towards = {}) const {
    for (int g = 0; g < m_count; ++g)
      if (m_groups[g].role == role && m_groups[g].towards == towards) return g;
    return -1;
  }
  /// Like find(), but a missing group is an error.
  int at(GroupRole role, NeighbourStep towards = {}) const {
    const int g = find(role, towards);
    if (g < 0)
      throw Error("karman::GroupTable: no " + std::string(name(role)) + " group towards " + to_string(towards));
    return g;
  }
  /// "shared -z" style name of group g, for messages.
  std::string describe(int g) const {
    const GroupInfo& i = (*this)[g];
    return std::string(name(i.role)) + (i.towards.none() ? "" : " " + to_string(i.towards));
  }

  /// A table whose only group is the interior: a box with no halo.
  static GroupTable single(index_t voxels) {
    GroupTable t;
    t.add(GroupRole::interior, {}, voxels);
    return t;
  }

  friend bool operator==(const GroupTable& a, const GroupTable& b) {
    if (a.m_count != b.m_count) return false;
    for (int g = 0; g < a.m_count; ++g)
      if (!(a.m_groups[g] == b.m_groups[g])) return false;
    return true;
  }

 private:
  int checked(int g) const {
    if (g < 0 || g >= m_count) {
      throw Error("karman::GroupTable: group " + std::to_string(g) + " out of range [0, " + std::to_string(m_count) +
                  ")");
    }
    return g;
  }

  std::array<GroupInfo, capacity> m_groups{};
  int m_count = 0;
};

}  // namespace karman
