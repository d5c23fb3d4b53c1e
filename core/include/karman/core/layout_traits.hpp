#pragma once
/// \file layout_traits.hpp
/// What makes a type a Karman layout: a tag with a nested `mapping` from (voxel, component)
/// to a storage offset, computed inline, chosen at compile time (never a runtime switch).

#include <type_traits>

namespace karman {

/// True for the layout tags AoS, SoA, CSoA<Alpha> and Disaggregated.
template <class Layout, class = void>
struct is_layout : std::false_type {};

template <class Layout>
struct is_layout<Layout, std::void_t<typename Layout::mapping, decltype(Layout::name)>> : std::true_type {};

template <class Layout>
inline constexpr bool is_layout_v = is_layout<Layout>::value;

/// The group span of a layout whose offsets depend on the voxel's group (Disaggregated's
/// `mapping::group_span`), resolved once per voxel by kernels; an empty type for the layouts
/// whose offsets do not (AoS, SoA, CSoA).
struct no_group_span {};

template <class Layout, class = void>
struct layout_group_span {
  using type = no_group_span;
};

template <class Layout>
struct layout_group_span<Layout, std::void_t<typename Layout::mapping::group_span>> {
  using type = typename Layout::mapping::group_span;
};

template <class Layout>
using layout_group_span_t = typename layout_group_span<Layout>::type;

/// True when offsets of Layout depend on the voxel's group.
template <class Layout>
inline constexpr bool has_group_span_v = !std::is_same_v<layout_group_span_t<Layout>, no_group_span>;

}  // namespace karman
