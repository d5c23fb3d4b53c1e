#pragma once
/// \file lattices.hpp
/// All lattice descriptors.

#include <karman/lbm/d2q9.hpp>
#include <karman/lbm/d3q19.hpp>
#include <karman/lbm/d3q27.hpp>
