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

}  // namespace karman
