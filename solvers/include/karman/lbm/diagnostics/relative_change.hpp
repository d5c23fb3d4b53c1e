#pragma once
/// \file relative_change.hpp
/// Relative change of a state vector between two snapshots, the steady-state residual.

#include <Kokkos_Core.hpp>

namespace karman::lbm {

/// ‖now − before‖₂ / ‖now‖₂ computed with KokkosBlas on the views' memory space.
/// When ‖now‖₂ = 0 the relative change is undefined and the absolute norm ‖now − before‖₂ is
/// returned instead (0 for two zero vectors). Throws karman::Error naming both extents when
/// the lengths differ.
double relative_change(Kokkos::View<const double*> now, Kokkos::View<const double*> before);

}  // namespace karman::lbm
