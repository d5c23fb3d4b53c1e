#pragma once
/// \file field.hpp
/// A field of Q components per voxel on a Kokkos::View, its memory mapping a template argument,
/// and what a Kokkos user expects of a View-like type: const conversion, unmanaged wrapping,
/// host mirrors and deep copies.

#include <karman/core/error.hpp>
#include <karman/core/field_value.hpp>
#include <karman/core/group.hpp>
#include <karman/core/host_pages.hpp>
#include <karman/core/layout_traits.hpp>
#include <karman/core/memory_block.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace karman {

/// Largest number of components a field may have (D3Q27 populations).
inline constexpr int max_components = 27;

/// The `Components` argument of a Field whose component count is known only at run time.
inline constexpr int dynamic_components = 0;

/// Q values per voxel over a group table. Kernels use only `f(voxel, q)`; which storage
/// offset that is, the Layout decides at compile time. Copies are shallow, like a View's.
///
/// `T` may be const (`const_type`): a read-only field that kernels take as input, converted
/// implicitly from the writable one. `Components` fixes Q at compile time where it is known
/// (e.g. a lattice's Q); the default, dynamic_components, takes it at run time.
///
/// A kernel that captures a Field copies the storage handle, the offset mapping and one
/// handle to the host-side group table, never the table itself.
template <class T, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space,
          int Components = dynamic_components>
class Field {
  static_assert(is_field_value_v<T>,
                "karman::Field: T must be an arithmetic type or Kokkos::Experimental::half_t (const allowed)");
  static_assert(is_layout_v<Layout>, "karman::Field: Layout must be AoS, SoA, CSoA<Alpha> or Disaggregated");
  static_assert(Kokkos::is_memory_space<MemorySpace>::value,
                "karman::Field: MemorySpace must be a Kokkos memory space");
  static_assert(Components == dynamic_components || (Components >= 1 && Components <= max_components),
                "karman::Field: Components must be dynamic_components or in [1, max_components]");

 public:
  using value_type = T;
  using const_value_type = std::add_const_t<T>;
  using non_const_value_type = std::remove_const_t<T>;
  using layout_type = Layout;
  using memory_space = MemorySpace;
  using execution_space = typename MemorySpace::execution_space;
  using mapping_type = typename Layout::mapping;
  using view_type = Kokkos::View<T*, MemorySpace>;
  /// The read-only field a writable one converts to.
  using const_type = Field<const_value_type, Layout, MemorySpace, Components>;
  /// The writable field.
  using non_const_type = Field<non_const_value_type, Layout, MemorySpace, Components>;
  /// A writable field of the same layout and groups in the memory space Kokkos mirrors
  /// MemorySpace to on the host (HostSpace for device memory).
  using host_mirror_type =
      Field<non_const_value_type, Layout, typename view_type::host_mirror_type::memory_space, Components>;

  /// Q when fixed at compile time, else dynamic_components.
  static constexpr int static_components = Components;

  Field() = default;
  /// Allocates (zero-initialised) storage for `components` values on every voxel of `groups`.
  Field(const std::string& label, const GroupTable& groups, int components)
      : m_map(groups, checked_components(components)),
        m_data(allocate_zeroed<view_type>(label, std::size_t(m_map.size()))),
        m_groups(make_table(groups)) {}
  /// Allocates (zero-initialised) storage for the compile-time number of components.
  template <int Q = Components, class = std::enable_if_t<Q != dynamic_components>>
  Field(const std::string& label, const GroupTable& groups) : Field(label, groups, Q) {}
  /// Wraps existing memory, unmanaged: `data` must hold required_allocation_size(groups,
  /// components) bytes in MemorySpace and outlive the field and its copies.
  Field(T* data, const GroupTable& groups, int components)
      : m_map(groups, checked_components(components)), m_data(data, m_map.size()), m_groups(make_table(groups)) {}

  /// A read-only view of a writable field, or a field of runtime Q from one of compile-time Q:
  /// the same storage.
  template <class U, int OtherComponents,
            class = std::enable_if_t<std::is_same_v<std::add_const_t<U>, const_value_type> &&
                                     (std::is_const_v<T> || !std::is_const_v<U>)&&(Components == dynamic_components ||
                                                                                   OtherComponents == Components)>>
  KOKKOS_INLINE_FUNCTION Field(const Field<U, Layout, MemorySpace, OtherComponents>& other)
      : m_map(other.m_map), m_data(other.m_data), m_groups(other.m_groups) {}

  /// Bytes of storage a field of `components` values on `groups` needs (padding included):
  /// what memory wrapped by the unmanaged constructor must hold.
  static std::size_t required_allocation_size(const GroupTable& groups, int components) {
    return std::size_t(mapping_type(groups, checked_components(components)).size()) * sizeof(T);
  }

  /// Where the components of a group's voxels lie, for layouts whose offsets depend on the
  /// group (Disaggregated); an empty type otherwise (layout_traits.hpp).
  using group_span = layout_group_span_t<Layout>;

  /// Component `comp` of voxel `voxel`.
  KOKKOS_INLINE_FUNCTION T& operator()(index_t voxel, int comp) const { return m_data(m_map.offset(voxel, comp)); }
  /// The span of the group holding `voxel`: what a kernel resolves once for many accesses.
  KOKKOS_INLINE_FUNCTION group_span span_of(index_t voxel) const {
    if constexpr (has_group_span_v<Layout>) {
      return m_map.span_of(voxel);
    } else {
      (void)voxel;
      return {};
    }
  }
  /// Component `comp` of `voxel`, which lies in the group of `span` (from span_of on a voxel
  /// of the same group): the same element as (voxel, comp) without looking the group up.
  KOKKOS_INLINE_FUNCTION T& operator()(const group_span& span, index_t voxel, int comp) const {
    return m_data(offset_in(span, voxel, comp));
  }

  /// The address of component `comp` of `voxel`, in the group of `span` (see above), as an
  /// integer for a prefetch hint (prefetch.hpp): computed from the mapping, never dereferenced
  /// and with no group looked up, so `voxel` may lie past the field.
  KOKKOS_INLINE_FUNCTION std::uintptr_t address_of(const group_span& span, index_t voxel, int comp) const {
    return reinterpret_cast<std::uintptr_t>(m_data.data()) + std::uintptr_t(offset_in(span, voxel, comp)) * sizeof(T);
  }

  /// Components per voxel.
  KOKKOS_INLINE_FUNCTION int components() const {
    if constexpr (Components != dynamic_components) {
      return Components;
    } else {
      return m_map.components();
    }
  }
  /// Voxels the field covers.
  index_t voxels() const { return groups().total(); }
  /// The groups the field was built on (an empty table for a default-constructed field).
  const GroupTable& groups() const {
    static const GroupTable none{};
    return m_groups.data() != nullptr ? m_groups() : none;
  }
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
  std::vector<MemoryBlock> blocks(int g, ComponentRange comps) const { return blocks(groups().range(g), comps); }
  /// Contiguous storage runs holding components `comps` of `voxels`.
  std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
    if (comps.begin < 0 || comps.end > components() || comps.begin > comps.end) {
      throw Error("karman::Field::blocks: component range [" + std::to_string(comps.begin) + ", " +
                  std::to_string(comps.end) + ") outside [0, " + std::to_string(components()) + ")");
    }
    return m_map.blocks(voxels, comps);
  }

 private:
  template <class, class, class, int>
  friend class Field;

  using table_view = Kokkos::View<const GroupTable, Kokkos::HostSpace>;

  /// Storage offset of component `comp` of `voxel` in the group of `span` (ignored by layouts
  /// without group spans).
  KOKKOS_INLINE_FUNCTION index_t offset_in(const group_span& span, index_t voxel, int comp) const {
    if constexpr (has_group_span_v<Layout>) {
      return m_map.offset(span, voxel, comp);
    } else {
      (void)span;
      return m_map.offset(voxel, comp);
    }
  }

  static int checked_components(int components) {
    require_in_range("karman::Field", "cardinality Q", components, 1, max_components);
    if (Components != dynamic_components && components != Components) {
      throw Error("karman::Field: cardinality Q = " + std::to_string(components) +
                  " differs from the compile-time Q = " + std::to_string(Components));
    }
    return components;
  }
  static table_view make_table(const GroupTable& groups) {
    Kokkos::View<GroupTable, Kokkos::HostSpace> table("karman::Field::groups");
    table() = groups;
    return table;
  }

  // What kernels read comes first; the group table stays on the host behind a handle.
  mapping_type m_map{};
  view_type m_data{};
  table_view m_groups{};
};

/// A new host allocation with the layout, groups and components of `src` (not its values).
template <class T, class Layout, class MemorySpace, int Components>
typename Field<T, Layout, MemorySpace, Components>::host_mirror_type create_mirror(
    const Field<T, Layout, MemorySpace, Components>& src) {
  using mirror_type = typename Field<T, Layout, MemorySpace, Components>::host_mirror_type;
  return mirror_type(src.label() + "_mirror", src.groups(), src.components());
}

/// `src` itself when its memory is already the host mirror's, else create_mirror(src).
template <class T, class Layout, class MemorySpace, int Components>
auto create_mirror_view(const Field<T, Layout, MemorySpace, Components>& src) {
  using field_type = Field<T, Layout, MemorySpace, Components>;
  if constexpr (std::is_same_v<typename field_type::host_mirror_type, field_type>) {
    return src;
  } else {
    return create_mirror(src);
  }
}

namespace detail {
template <class Dst, class Src>
void check_deep_copy(const Dst& dst, const Src& src) {
  static_assert(std::is_same_v<typename Dst::layout_type, typename Src::layout_type>,
                "karman::deep_copy: both fields must have the same Layout (copy through a kernel otherwise)");
  static_assert(!std::is_const_v<typename Dst::value_type>, "karman::deep_copy: the destination must be writable");
  static_assert(std::is_same_v<typename Dst::non_const_value_type, typename Src::non_const_value_type>,
                "karman::deep_copy: both fields must hold the same value type");
  if (!(dst.groups() == src.groups()) || dst.components() != src.components()) {
    throw Error("karman::deep_copy: destination '" + dst.label() + "' has " + std::to_string(dst.voxels()) +
                " voxels x " + std::to_string(dst.components()) + " components, source '" + src.label() + "' has " +
                std::to_string(src.voxels()) + " x " + std::to_string(src.components()) +
                " (the group tables must match too)");
  }
}
}  // namespace detail

/// Copies every value of `src` into `dst` (same layout, groups and components; any memory
/// spaces), then fences, as Kokkos::deep_copy does.
template <class T, class DstLayout, class DstSpace, int DstQ, class U, class SrcLayout, class SrcSpace, int SrcQ>
void deep_copy(const Field<T, DstLayout, DstSpace, DstQ>& dst, const Field<U, SrcLayout, SrcSpace, SrcQ>& src) {
  detail::check_deep_copy(dst, src);
  Kokkos::deep_copy(dst.view(), src.view());
}

/// Copies `src` into `dst` ordered on `space`, without fencing.
template <class ExecutionSpace, class T, class DstLayout, class DstSpace, int DstQ, class U, class SrcLayout,
          class SrcSpace, int SrcQ>
void deep_copy(const ExecutionSpace& space, const Field<T, DstLayout, DstSpace, DstQ>& dst,
               const Field<U, SrcLayout, SrcSpace, SrcQ>& src) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "karman::deep_copy: the first of three arguments must be a Kokkos execution space");
  detail::check_deep_copy(dst, src);
  Kokkos::deep_copy(space, dst.view(), src.view());
}

/// Sets every component of every voxel of `dst` to `value`.
template <class T, class Layout, class MemorySpace, int Components>
void deep_copy(const Field<T, Layout, MemorySpace, Components>& dst, const std::remove_const_t<T>& value) {
  static_assert(!std::is_const_v<T>, "karman::deep_copy: the destination must be writable");
  Kokkos::deep_copy(dst.view(), value);
}

}  // namespace karman
