#pragma once
/// \file pattern.hpp
/// Propagation patterns: two lattices (AB pull) or one lattice updated in place (AA, Bailey
/// et al. 2009).

namespace karman::lbm {

/// Propagation pattern: two lattices (AB pull) or one lattice in place (AA).
enum class Pattern { ab, aa };

/// A pattern as a type, with the name users type.
template <Pattern P>
struct PatternTag {
  static constexpr Pattern value = P;
  static constexpr const char* name = P == Pattern::ab ? "ab" : "aa";
};

}  // namespace karman::lbm
