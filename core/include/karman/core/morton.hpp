#pragma once
/// \file morton.hpp
/// Morton (Z-order) codes: the bits of three coordinates interleaved, so that points close in
/// space get close codes. Blocks of the block-sparse grid are stored in this order (Meneghin &
/// Mahmoud §IV), and immersed-boundary markers are visited in it (Chen et al. 2022 §4.2.2).

#include <cstdint>

namespace karman {

/// The Morton code of (x, y, z), 21 bits of each: their bits interleaved, x lowest.
inline std::uint64_t morton_code(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  const auto spread = [](std::uint64_t v) {
    // Inserts two zero bits between consecutive bits of the lowest 21 bits of v.
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
  };
  return spread(x) | spread(y) << 1 | spread(z) << 2;
}

}  // namespace karman
