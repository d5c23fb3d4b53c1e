#pragma once
/// \file refined_options.hpp
/// The two choices a refined grid's step offers (refined_step.hpp, level_coupling.hpp): how a
/// level's kernels are launched and how a coarser value reaches the finer voxels. Apart from the
/// kernels, so that command lines and factories name them without parsing the step.

#include <cstdint>
#include <string_view>

namespace karman::lbm {

/// How a level's step launches its kernels; both compute the same bits.
enum class RefinedSchedule {
  /// Stream and collide fused per voxel: the solver's kernel on the leaf blocks away from a jump,
  /// each kind of block (away from a jump, at one) a run and a kernel of its own (seed 000 §V's
  /// memory grouping); the jump blocks pull through the coupling tables from the kept states,
  /// which is what lets them fuse too.
  disaggregated,
  /// Stream and collide as separate passes over every leaf block: the pulls, coupled ones
  /// included (explosion, coalescence), stored before any collision, then the collision in place
  /// (the unfused algorithm of seed 000's Table V, which the disaggregated one is measured against).
  baseline,
};

/// The schedule's name, as a command line and summary.json give it.
constexpr std::string_view name(RefinedSchedule s) {
  return s == RefinedSchedule::disaggregated ? "disaggregated" : "baseline";
}

/// How the coupling hands a coarser voxel's value to the finer voxels of its space.
enum class Explosion : std::uint8_t {
  /// The same value to every finer voxel (Rohde et al. 2006, Neon): exact for populations at
  /// equilibrium, first order where the field varies along a jump.
  constant,
  /// The value plus its gradient along the jump (central differences over the coarser voxel's
  /// neighbours of its level, where both are leaves) times the finer voxel's offset from its centre
  /// (±1/4 of the coarser voxel along each axis), as waLBerla offers. The offsets of a voxel's children
  /// cancel, so the mass a coarser population brings is unchanged, provided every read of a
  /// virtual voxel names its child (docs/multiresolution.md).
  linear,
};

/// The explosion's name, as a command line and summary.json give it.
constexpr std::string_view name(Explosion e) { return e == Explosion::constant ? "constant" : "linear"; }

}  // namespace karman::lbm
