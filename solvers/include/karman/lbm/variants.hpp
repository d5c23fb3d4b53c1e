#pragma once
/// \file variants.hpp
/// The one registry of compile-time variants: which lattices, precisions, layouts, collisions
/// and propagation patterns exist, and the name users type for each. The command line, the
/// bench, the solver factory and the list of generated translation units all read it, so a
/// name is accepted exactly where it is dispatched, and an unknown name is refused with the
/// accepted ones instead of silently running a default.

#include <karman/core/error.hpp>
#include <karman/core/layouts.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/lattices.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/precision.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace karman::lbm {

/// Name of a variant type: its own `name` member, or the specialisations below.
template <class T>
struct VariantName {
  static constexpr const char* value = T::name;
};
template <>
struct VariantName<float> {
  static constexpr const char* value = "float";
};
template <>
struct VariantName<double> {
  static constexpr const char* value = "double";
};

/// A type carried as a value, so a generic lambda can receive it.
template <class T>
struct TypeTag {
  using type = T;
};
/// The type a TypeTag argument carries: `tag_type<decltype(tag)>` (decayed, since a nested
/// lambda may see the tag as a captured reference).
template <class Tag>
using tag_type = typename std::decay_t<Tag>::type;

/// An ordered set of variant types; `Kind` names what they are ("lattice", ...).
template <class Kind, class... Ts>
struct VariantList {
  static constexpr const char* kind = Kind::value;
  static constexpr int size = int(sizeof...(Ts));
  /// Position of the type named `name`, or -1.
  static constexpr int index_of(std::string_view name) {
    int index = 0, found = -1;
    ((found = (found < 0 && name == std::string_view(VariantName<Ts>::value)) ? index : found, ++index), ...);
    return found;
  }
  /// The names, in order.
  static std::vector<std::string> names() { return {VariantName<Ts>::value...}; }
};

namespace detail {
template <int I, class T, class... Ts>
struct NthType {
  using type = typename NthType<I - 1, Ts...>::type;
};
template <class T, class... Ts>
struct NthType<0, T, Ts...> {
  using type = T;
};
template <int I, class List>
struct TypeAt;
template <int I, class Kind, class... Ts>
struct TypeAt<I, VariantList<Kind, Ts...>> {
  static_assert(I >= 0 && I < int(sizeof...(Ts)), "index outside the variant list");
  using type = typename NthType<I, Ts...>::type;
};
struct LatticeKind {
  static constexpr const char* value = "lattice";
};
struct PrecisionKind {
  static constexpr const char* value = "precision";
};
struct LayoutKind {
  static constexpr const char* value = "layout";
};
struct CollisionKind {
  static constexpr const char* value = "collision";
};
struct PatternKind {
  static constexpr const char* value = "pattern";
};
}  // namespace detail

/// The I-th type of a VariantList.
template <class List, int I>
using type_at_t = typename detail::TypeAt<I, List>::type;

/// Every variant Karman knows. Adding a type here makes its name valid everywhere; the solver
/// factory then needs it compiled (solvers/CMakeLists.txt, KARMAN_LATTICES & co.).
using Lattices = VariantList<detail::LatticeKind, D2Q9, D3Q19, D3Q27>;
using Precisions = VariantList<detail::PrecisionKind, float, double, FP16S, FP16C>;
using Layouts = VariantList<detail::LayoutKind, AoS, SoA, CSoADefault, Disaggregated>;
/// Not every collision exists on every lattice (Collision::defined_for<L>): the solver units
/// compile a collision only for its lattices and the factory refuses the other pairs.
using Collisions = VariantList<detail::CollisionKind, BGK, TRT, MRT, CM>;
using Patterns = VariantList<detail::PatternKind, PatternTag<Pattern::ab>, PatternTag<Pattern::aa>>;

/// "a, b, c": the accepted names of a list, for messages.
template <class List>
std::string accepted_names() {
  std::string list;
  for (const auto& n : List::names()) list += (list.empty() ? "" : ", ") + n;
  return list;
}

/// Throws karman::Error naming the accepted names unless `name` is one of List.
template <class List>
void require_known(std::string_view name) {
  if (List::index_of(name) < 0)
    throw Error(std::string("unknown ") + List::kind + " '" + std::string(name) +
                "'; accepted: " + accepted_names<List>());
}

namespace detail {
template <class List, int I, class F>
decltype(auto) dispatch_from(int index, F&& f) {
  if constexpr (I + 1 == List::size) {
    return f(TypeTag<type_at_t<List, I>>{});
  } else {
    if (index == I) return f(TypeTag<type_at_t<List, I>>{});
    return dispatch_from<List, I + 1>(index, std::forward<F>(f));
  }
}
}  // namespace detail

/// Calls f(TypeTag<T>{}) for the type T of List named `name`; throws karman::Error naming the
/// accepted names for any other name. Every branch of f must return the same type.
template <class List, class F>
decltype(auto) dispatch(std::string_view name, F&& f) {
  require_known<List>(name);
  return detail::dispatch_from<List, 0>(List::index_of(name), std::forward<F>(f));
}

/// One variant of List, named at run time and checked where the name comes in (command line,
/// configuration, bench options): constructing it from an unknown name throws karman::Error
/// naming the accepted ones, so a Choice always stands for a type of List and dispatch on it
/// cannot fail. It converts to its name for messages and output.
template <class List>
class Choice {
 public:
  Choice(std::string_view name) : m_index(checked_index(name)) {}      // NOLINT: implicit, names come in as strings
  Choice(const char* name) : Choice(std::string_view(name)) {}         // NOLINT
  Choice(const std::string& name) : Choice(std::string_view(name)) {}  // NOLINT

  /// Position of the type in List.
  int index() const { return m_index; }
  /// The name users type for it.
  const std::string& name() const {
    static const std::vector<std::string> names = List::names();
    return names[std::size_t(m_index)];
  }
  operator const std::string&() const { return name(); }  // NOLINT: a choice reads as its name
  operator std::string_view() const { return name(); }    // NOLINT

  friend bool operator==(const Choice& a, const Choice& b) { return a.m_index == b.m_index; }
  friend bool operator!=(const Choice& a, const Choice& b) { return a.m_index != b.m_index; }
  friend bool operator==(const Choice& a, const char* name) { return a.name() == name; }
  friend bool operator!=(const Choice& a, const char* name) { return a.name() != name; }

 private:
  static int checked_index(std::string_view name) {
    require_known<List>(name);
    return List::index_of(name);
  }
  int m_index;
};

using LatticeChoice = Choice<Lattices>;
using PrecisionChoice = Choice<Precisions>;
using LayoutChoice = Choice<Layouts>;
using CollisionChoice = Choice<Collisions>;
using PatternChoice = Choice<Patterns>;

/// Calls f(TypeTag<T>{}) for the type T of List that `choice` stands for (a Choice itself, not
/// a name converted to one: names go through the overload above).
template <class List, class C, class F, std::enable_if_t<std::is_same_v<C, Choice<List>>, int> = 0>
decltype(auto) dispatch(const C& choice, F&& f) {
  return detail::dispatch_from<List, 0>(choice.index(), std::forward<F>(f));
}

/// Number of populations of the lattice named `name`.
inline int lattice_populations(std::string_view name) {
  return dispatch<Lattices>(name, [](auto l) { return tag_type<decltype(l)>::Q; });
}
/// Dimension of the lattice named `name`.
inline int lattice_dimension(std::string_view name) {
  return dispatch<Lattices>(name, [](auto l) { return tag_type<decltype(l)>::D; });
}
/// Whether the collision named `collision` is defined for the lattice named `lattice`.
inline bool collision_defined_for(std::string_view collision, std::string_view lattice) {
  return dispatch<Lattices>(lattice, [&](auto l) {
    return dispatch<Collisions>(
        collision, [](auto c) { return tag_type<decltype(c)>::template defined_for<tag_type<decltype(l)>>; });
  });
}
/// "bgk, trt, ...": the collisions defined for the lattice named `lattice`, for messages.
inline std::string collisions_for(std::string_view lattice) {
  std::string list;
  for (const auto& c : Collisions::names())
    if (collision_defined_for(c, lattice)) list += (list.empty() ? "" : ", ") + c;
  return list;
}
/// Whether the collision named `collision` reads the bulk and higher-order rates.
inline bool collision_has_moment_rates(std::string_view collision) {
  return dispatch<Collisions>(collision, [](auto c) { return tag_type<decltype(c)>::moment_rates; });
}
/// The refusal of a collision on a lattice it is not defined for, naming the accepted ones.
inline std::string undefined_collision_message(std::string_view collision, std::string_view lattice) {
  return "collision '" + std::string(collision) + "' is not defined for lattice " + std::string(lattice) +
         "; accepted for " + std::string(lattice) + ": " + collisions_for(lattice);
}
/// Throws karman::Error naming the collisions the lattice accepts unless `collision` is one.
inline void require_collision_for(std::string_view collision, std::string_view lattice) {
  if (!collision_defined_for(collision, lattice)) throw Error(undefined_collision_message(collision, lattice));
}
/// Bytes of one stored population of the precision named `name`.
inline int precision_bytes(std::string_view name) {
  return dispatch<Precisions>(name, [](auto p) { return int(sizeof(storage_t<tag_type<decltype(p)>>)); });
}

}  // namespace karman::lbm
