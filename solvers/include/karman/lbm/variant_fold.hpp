#pragma once
/// \file variant_fold.hpp
/// The one fold of a solver's runtime choices into template arguments, for every grid: the
/// collision (those the lattice defines and the grid compiles), the pattern and the force
/// features (the Guo body force terms, the per-voxel force field). A grid brings a builder that
/// constructs its solver for one set of template arguments and says which of them it compiles;
/// the fold itself never names a grid, so slabs, Cartesian blocks and the block-sparse grid
/// refuse and choose alike.
///
/// A builder B provides
/// - `B::result_type`, the owning pointer it returns;
/// - `B::template compiles<Collision>`, whether the grid compiles that collision (one the lattice
///   defines), and, where that is false for some collision, `b.collision_refusal(setup)`;
/// - `B::template force_field_kernels<Collision, P>`, whether the per-voxel force field's kernels
///   are compiled for that collision and pattern, and `b.force_field_refusal(setup)`;
/// - `b.template build<Collision, P, Forced, ForceField>(setup)`.

#include <karman/core/error.hpp>
#include <karman/lbm/pattern.hpp>
#include <karman/lbm/solver_setup.hpp>
#include <karman/lbm/variants.hpp>

#include <string>

namespace karman::lbm::detail {

/// Whether the case has a body force: the Guo force terms are compiled in only then.
inline bool has_body_force(const SolverSetup& setup) {
  const auto& f = setup.relaxation.force;
  return f[0] != 0 || f[1] != 0 || f[2] != 0;
}

/// Whether the case needs the per-voxel force field: a force field of its own, or immersed
/// boundaries spreading their forces into one.
inline bool needs_force_field(const SolverSetup& setup) { return setup.force_field || !setup.immersed_body.empty(); }

/// What needs the per-voxel force field, in the words of the command line.
inline std::string force_field_source(const SolverSetup& setup) {
  return setup.force_field ? "force_field" : "immersed boundaries";
}

/// The solver of one collision: the pattern chosen at run time, then the force features the
/// case needs (the force field, else the body force terms, else neither).
template <class Collision, class Builder>
typename Builder::result_type fold_pattern_and_forces(const SolverSetup& setup, const Builder& builder) {
  return dispatch<Patterns>(setup.variant.pattern, [&](auto pattern) -> typename Builder::result_type {
    constexpr Pattern P = tag_type<decltype(pattern)>::value;
    if (needs_force_field(setup)) {
      if constexpr (Builder::template force_field_kernels<Collision, P>) {
        return builder.template build<Collision, P, true, true>(setup);
      } else {
        throw Error(builder.force_field_refusal(setup));
      }
    }
    if (has_body_force(setup)) return builder.template build<Collision, P, true, false>(setup);
    return builder.template build<Collision, P, false, false>(setup);
  });
}

/// A builder's refusal of a collision it does not compile. A function template of its own, so
/// that the call names `Collision` and is instantiated only where the refusal is reached: Clang
/// checks a non-dependent call inside a generic lambda's discarded branch as soon as the
/// enclosing fold is instantiated, and a builder that compiles every collision has no such member.
template <class Collision, class Builder>
std::string collision_refusal(const Builder& builder, const SolverSetup& setup) {
  return builder.collision_refusal(setup);
}

/// The collision chosen at run time, refused where the lattice does not define it or the grid
/// does not compile it; `per_collision(tag)` builds the rest (fold_pattern_and_forces, or an
/// entry point instantiated in a unit of its own when collisions are split).
template <class L, class Builder, class PerCollision>
typename Builder::result_type fold_collision(const SolverSetup& setup, const Builder& builder,
                                             PerCollision&& per_collision) {
  return dispatch<Collisions>(setup.variant.collision, [&](auto collision) -> typename Builder::result_type {
    using Collision = tag_type<decltype(collision)>;
    if constexpr (!Collision::template defined_for<L>) {
      throw Error(undefined_collision_message(Collision::name, L::name));
    } else if constexpr (!Builder::template compiles<Collision>) {
      throw Error(collision_refusal<Collision>(builder, setup));
    } else {
      return per_collision(collision);
    }
  });
}

}  // namespace karman::lbm::detail
