#pragma once
// Shared by the refined-grid tests: a reproducible random refinement rule.
#include <karman/core/morton.hpp>
#include <karman/core/refined/refined_levels.hpp>

#include <cstdint>

namespace karman::test {

/// A reproducible coin per block: refines about one block in `one_in` on each level.
struct RandomRefinement {
  std::uint64_t seed;
  int one_in;
  bool operator()(int level, const LevelBlockCoordinates& at) const {
    std::uint64_t h = seed ^ (std::uint64_t(level) << 56) ^
                      morton_code(std::uint32_t(at[0]), std::uint32_t(at[1]), std::uint32_t(at[2]));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h % std::uint64_t(one_in) == 0;
  }
};

}  // namespace karman::test
