#pragma once
/// \file level_relaxation.hpp
/// The relaxation of a refined grid's finer levels from the coarsest level's. Levels are 2:1
/// apart with acoustic scaling (Rohde et al. 2006; Mahmoud, Salehipour & Meneghin, IPDPS 2024):
/// every level keeps the lattice speed of sound, so a level's time step halves with its voxel
/// edge, and the same fluid has, in a level's lattice units, twice the viscosity of the level
/// above (ν = ν_phys Δt / Δx²): τ − 1/2 doubles per refinement, τ_f = 2 τ_c − 1/2.

#include <karman/core/error.hpp>
#include <karman/lbm/collision.hpp>

#include <string>

namespace karman::lbm {

/// The parameters of a level `refinements` levels finer than the one `coarse` holds for:
/// - the shear rate ω from τ − 1/2 = 2^k (τ_c − 1/2), k = refinements;
/// - the bulk rate (MRT, CM) the same way, the bulk viscosity scaling as the shear viscosity;
/// - the rate of the third and higher orders (MRT, CM) unchanged: those moments carry no
///   transport coefficient and relax towards equilibrium on every level alike;
/// - TRT's magic parameter Λ unchanged, so its antisymmetric rate follows the new ω and walls
///   stay half-way between voxels on every level (Ginzburg 2008);
/// - the body force density halved per refinement: in lattice units an acceleration is
///   a Δt² / Δx, and Δt ∝ Δx.
/// Throws karman::Error for a negative refinement count or a coarse rate outside (0, 2).
inline RelaxationParams refined_relaxation(const RelaxationParams& coarse, int refinements) {
  if (refinements < 0) {
    throw Error("karman::lbm::refined_relaxation: " + std::to_string(refinements) +
                " refinements; accepted: 0 or more");
  }
  const auto check = [](double omega, const char* what) {
    if (!(omega > 0 && omega < 2)) {
      throw Error(std::string("karman::lbm::refined_relaxation: the coarsest level's ") + what + " rate " +
                  std::to_string(omega) + " is outside (0, 2)");
    }
  };
  check(coarse.omega, "shear");
  check(coarse.omega_bulk, "bulk");
  if (refinements == 0) return coarse;  // bit for bit: the coarsest level itself
  const double scale = double(1 << refinements);
  const auto refined_rate = [scale](double omega) { return 1.0 / (scale * (1.0 / omega - 0.5) + 0.5); };
  RelaxationParams fine = coarse;
  fine.omega = refined_rate(coarse.omega);
  fine.omega_bulk = refined_rate(coarse.omega_bulk);
  for (double& f : fine.force) f /= scale;
  return fine;
}

/// The parameters of the level `refinements` levels coarser than the one `fine` holds for: the
/// inverse of refined_relaxation (τ − 1/2 halves per level, the body force doubles), for cases
/// that give their viscosity on the finest level. Throws karman::Error for a negative refinement
/// count or a fine rate outside (0, 2).
inline RelaxationParams coarsened_relaxation(const RelaxationParams& fine, int refinements) {
  if (refinements < 0) {
    throw Error("karman::lbm::coarsened_relaxation: " + std::to_string(refinements) +
                " refinements; accepted: 0 or more");
  }
  for (const double omega : {fine.omega, fine.omega_bulk}) {
    if (!(omega > 0 && omega < 2)) {
      throw Error("karman::lbm::coarsened_relaxation: the finest level's rate " + std::to_string(omega) +
                  " is outside (0, 2)");
    }
  }
  if (refinements == 0) return fine;
  const double scale = double(1 << refinements);
  const auto coarse_rate = [scale](double omega) { return 1.0 / ((1.0 / omega - 0.5) / scale + 0.5); };
  RelaxationParams coarse = fine;
  coarse.omega = coarse_rate(fine.omega);
  coarse.omega_bulk = coarse_rate(fine.omega_bulk);
  for (double& f : coarse.force) f *= scale;
  return coarse;
}

}  // namespace karman::lbm
