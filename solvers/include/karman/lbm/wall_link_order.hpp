#pragma once
/// \file wall_link_order.hpp
/// What every grid's cut links of a curved body (curved_wall.hpp) ask of the setup before they
/// are built: a wall at rest with a fraction function, and the interpolation's order.

#include <karman/lbm/solver_setup.hpp>

#include <string>

namespace karman::lbm {

/// The interpolation order (0 bounce-back, 1 linear, 2 quadratic) of setup.curved_wall's cut links;
/// throws karman::Error, naming `who`, where the wall moves or has no fraction function.
int wall_link_order(const SolverSetup& setup, const std::string& who);

}  // namespace karman::lbm
