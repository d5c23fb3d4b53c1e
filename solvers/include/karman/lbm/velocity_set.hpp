#pragma once
/// \file velocity_set.hpp
/// A lattice's velocity vectors as host data, for set-up code (flags, halo plans, samples).

#include <array>
#include <vector>

namespace karman::lbm {

/// Velocity vectors of lattice L, for host-side setup code.
template <class L>
std::vector<std::array<int, 3>> velocity_set() {
  std::vector<std::array<int, 3>> c(L::Q);
  for (int i = 0; i < L::Q; ++i) c[i] = {L::c(i, 0), L::c(i, 1), L::c(i, 2)};
  return c;
}

}  // namespace karman::lbm
