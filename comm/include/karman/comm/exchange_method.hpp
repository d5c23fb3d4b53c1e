#pragma once
/// \file exchange_method.hpp
/// How a halo transfer of a given layout becomes MPI messages, chosen at compile time from the
/// layout (Meneghin & Mahmoud §VI-A.2, Table III): the counts the benchmark compares come from here.

#include <karman/core/layouts.hpp>

#include <string_view>

namespace karman::comm {

/// Ways to turn one (group, component range) transfer into messages.
enum class ExchangeMethod : int {
  /// One message per contiguous storage run, sent from and received into the field itself
  /// (zero copy). Disaggregated: one run, so one message per neighbour (α = 2, β = crossing·s);
  /// SoA: one run per component (α = 2·crossing).
  in_place = 0,
  /// The transfer widened to all Q components of its voxels, which is one contiguous run in
  /// AoS: one message per neighbour carrying Q·s values (α = 2, β = 2·Q·s). A widened receive
  /// lands in place in a halo group (copies only); into owned voxels it goes through a buffer
  /// so that only the planned components change.
  whole_voxels = 1,
  /// Components gathered into a contiguous buffer by a kernel through the field accessor and
  /// scattered back on arrival: one message per neighbour for layouts whose runs are many (CSoA).
  packed = 2
};

/// Name of a method, as in output.
constexpr std::string_view name(ExchangeMethod method) {
  return method == ExchangeMethod::in_place ? "in_place"
                                            : (method == ExchangeMethod::whole_voxels ? "whole_voxels" : "packed");
}

/// The method for a layout; packing is the default, correct for any layout.
template <class Layout>
struct exchange_method {
  static constexpr ExchangeMethod value = ExchangeMethod::packed;
};

template <int MaxGroups>
struct exchange_method<BasicDisaggregated<MaxGroups>> {
  static constexpr ExchangeMethod value = ExchangeMethod::in_place;
};

template <>
struct exchange_method<SoA> {
  static constexpr ExchangeMethod value = ExchangeMethod::in_place;
};

template <>
struct exchange_method<AoS> {
  static constexpr ExchangeMethod value = ExchangeMethod::whole_voxels;
};

/// The method for Layout.
template <class Layout>
inline constexpr ExchangeMethod exchange_method_v = exchange_method<Layout>::value;

}  // namespace karman::comm
