#pragma once
/// \file field.hpp
/// A field of Q components per voxel on a Kokkos::View, its memory mapping a template argument.

#include <karman/core/error.hpp>
#include <karman/core/group.hpp>
#include <karman/core/layout_traits.hpp>
#include <karman/core/memory_block.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace karman {

/// Largest number of components a field may have (D3Q27 populations).
inline constexpr int max_components = 27;

/// Q values per voxel over a group table. Kernels use only `f(voxel, q)`; which storage
/// offset that is, the Layout decides at compile time.
template <class T, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Field {
  static_assert(std::is_arithmetic_v<T>, "karman::Field: T must be an arithmetic type");
  static_assert(is_layout_v<Layout>, "karman::Field: Layout must be AoS, SoA, CSoA<Alpha> or Disaggregated");
  static_assert(Kokkos::is_memory_space<MemorySpace>::value,
                "karman::Field: MemorySpace must be a Kokkos memory space");

 public:
  using value_type = T;
  using layout_type = Layout;
  using memory_space = MemorySpace;
  using execution_space = typename MemorySpace::execution_space;
  using mapping_type = typename Layout::mapping;
  using view_type = Kokkos::View<T*, MemorySpace>;

  Field() = default;
  /// Allocates (zero-initialised) storage for `components` values on every voxel of `groups`.
  Field(const std::string& label, const GroupTable& groups, int components)
      : m_groups(groups), m_map(groups, checked_components(components)), m_data(label, m_map.size()) {}

  /// Component `comp` of voxel `voxel`.
  KOKKOS_INLINE_FUNCTION T& operator()(index_t voxel, int comp) const { return m_data(m_map.offset(voxel, comp)); }

  /// Components per voxel.
  KOKKOS_INLINE_FUNCTION int components() const { return m_map.components(); }
  /// Voxels the field covers.
  index_t voxels() const { return m_groups.total(); }
  /// The groups the field was built on.
  const GroupTable& groups() const { return m_groups; }
  /// The offset mapping.
  KOKKOS_INLINE_FUNCTION const mapping_type& mapping() const { return m_map; }
  /// The underlying storage (size() elements, padding included).
  const view_type& view() const { return m_data; }
  /// Start of the storage.
  T* data() const { return m_data.data(); }
  /// Storage label.
  std::string label() const { return m_data.label(); }

  /// Contiguous storage runs holding components `comps` of group `g`: what a message can send
  /// in place. One block for Disaggregated; one per component for SoA; see each layout.
  std::vector<MemoryBlock> blocks(Group g, ComponentRange comps) const { return blocks(m_groups[g], comps); }
  /// Contiguous storage runs holding components `comps` of `voxels`.
  std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
    if (comps.begin < 0 || comps.end > components() || comps.begin > comps.end) {
      throw Error("karman::Field::blocks: component range [" + std::to_string(comps.begin) + ", " +
                  std::to_string(comps.end) + ") outside [0, " + std::to_string(components()) + ")");
    }
    return m_map.blocks(voxels, comps);
  }

 private:
  static int checked_components(int components) {
    require_in_range("karman::Field", "cardinality Q", components, 1, max_components);
    return components;
  }

  GroupTable m_groups{};
  mapping_type m_map{};
  view_type m_data{};
};

}  // namespace karman
