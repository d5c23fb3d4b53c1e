#pragma once
/// \file block_walls.hpp
/// Half-way bounce-back for walls at rest in the CPU update of a block-sparse grid's boundary
/// blocks by tiles (StreamCollide::update_block, block_tile.hpp): the populations load() gives
/// per voxel, chosen by a select per population across the block's voxels, so that it
/// vectorises like the pull and the collision; and the chunks of solid voxels the collision
/// skips.

#include <karman/core/backend_traits.hpp>
#include <karman/lbm/cell_flags.hpp>

#include <cstdint>

namespace karman::lbm {

/// What a boundary block's flag words say to its update by tiles. `Voxels`: the block's.
template <int Voxels>
struct BlockWalls {
  /// Voxels the collision loop skips together when all are solid: a vector of FP32 lanes.
  static constexpr int chunk = Voxels < 8 ? Voxels : 8;
  static_assert(Voxels % chunk == 0 && Voxels / chunk <= 64, "karman::lbm: a block's chunks fit one 64-bit mask");

  std::uint64_t solid_chunks = 0;  ///< bit c: voxels [c * chunk, (c + 1) * chunk) are all solid
  bool open = false;               ///< a velocity or pressure boundary voxel is in the block

  /// Reads the block's flag words, `flag_words[0 .. Voxels)`.
  KOKKOS_INLINE_FUNCTION explicit BlockWalls(const flag_t* flag_words) {
    flag_t any = 0;  // a reduction: the loop is not declared independent (KARMAN_SIMD)
    for (int l = 0; l < Voxels; ++l) any |= flag_words[l] & open_bit;
    open = any != 0;
    for (int c = 0; c < Voxels / chunk; ++c) {
      bool solid = true;
      for (int l = c * chunk; l < (c + 1) * chunk; ++l) solid = solid && (flag_words[l] & kind_bits) == solid_bits;
      solid_chunks |= std::uint64_t(solid) << c;
    }
  }

  /// Whether flag word `fl` is a velocity or pressure boundary voxel's (what `open` looks for).
  KOKKOS_INLINE_FUNCTION static constexpr bool open_boundary(flag_t fl) { return (fl & open_bit) != 0; }

  /// Half-way bounce-back of population i in the tile of a boundary block, as load() gives it
  /// per voxel for walls at rest: where the flag word says x - c_i is not fluid, the voxel's own
  /// post-collision population opposite(i) (`own`, that slot's run of the block, word for word:
  /// w_i = w_opposite(i), so it decodes alike in either slot) replaces the pulled one. A solid
  /// voxel (an inactive one is flagged solid) gets the rest weight `at_rest`, so its collision,
  /// which no AB step reads, stays finite.
  template <class Word>
  KOKKOS_FORCEINLINE_FUNCTION static void bounce(const flag_t* flag_words, int i, const Word* own, Word at_rest,
                                                 Word* tile) {
    KARMAN_SIMD
    for (int l = 0; l < Voxels; ++l) tile[l] = entering(flag_words[l], i, tile[l], own[l], at_rest);
  }

 private:
  static constexpr flag_t kind_bits = flags::make(CellKind::pressure_boundary, 0, 0);
  static constexpr flag_t solid_bits = flags::make(CellKind::solid, 0, 0);
  /// Velocity (kind 2) and pressure (kind 3) boundaries both have this bit of the kind.
  static constexpr flag_t open_bit = flags::make(CellKind::velocity_boundary, 0, 0);
  static_assert((flags::make(CellKind::pressure_boundary, 0, 0) & open_bit) != 0 && (solid_bits & open_bit) == 0);

  /// Population i's word entering the collision of a voxel of flag word `fl` (bounce()). The
  /// tests are masks of the flag word: GCC does not vectorise the one-bit bool flags::blocked()
  /// gives. Both words are read whatever the flags: a select, not a masked load.
  template <class Word>
  KOKKOS_FORCEINLINE_FUNCTION static Word entering(flag_t fl, int i, Word pulled, Word bounced, Word at_rest) {
    const Word streamed = (fl & (flag_t(1) << i)) != 0 ? bounced : pulled;
    return (fl & kind_bits) == solid_bits ? at_rest : streamed;
  }
};

}  // namespace karman::lbm
