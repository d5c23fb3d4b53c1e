#pragma once
/// \file block_shape.hpp
/// The shape of one block of a block-sparse grid (Meneghin & Mahmoud §IV: 4^3 voxel blocks):
/// B voxels per axis, B^Dim voxels numbered x fastest, their activity one 64-bit word, and the
/// 3^Dim blocks around a block (itself included) numbered (ox + 1) + 3 (oy + 1) + 9 (oz + 1).

#include <karman/core/extents.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>

namespace karman {

/// Compile-time shape of a B^Dim voxel block.
template <int Dim, int B>
struct BlockShape {
  static_assert(Dim == 2 || Dim == 3, "karman::BlockShape: Dim must be 2 or 3");
  static_assert(B >= 2 && (B & (B - 1)) == 0, "karman::BlockShape: B must be a power of two, at least 2");
  static_assert((Dim == 3 ? B * B * B : B * B) <= 64,
                "karman::BlockShape: B^Dim must be at most 64 (a block's mask is one 64-bit word): B <= 4 in 3D, "
                "B <= 8 in 2D");

  /// Spatial dimension.
  static constexpr int dim = Dim;
  /// Voxels along each axis of a block.
  static constexpr int edge = B;
  /// Voxels in a block, B^Dim.
  static constexpr int voxels = Dim == 3 ? B * B * B : B * B;
  /// Blocks around a block, itself included: 3^Dim.
  static constexpr int directions = Dim == 3 ? 27 : 9;
  /// Direction of the block itself, (0, 0, 0).
  static constexpr int centre = Dim == 3 ? 13 : 4;

  /// One bit per voxel of a block, bit l for local voxel l.
  using mask_type = std::uint64_t;
  /// Every voxel of a block active.
  static constexpr mask_type full_mask = voxels == 64 ? ~mask_type(0) : (mask_type(1) << voxels) - 1;

  /// Local index of the voxel at (x, y, z) inside a block, each in [0, B); z is 0 in 2D.
  KOKKOS_INLINE_FUNCTION static constexpr int local_index(int x, int y, int z) { return x + B * (y + B * z); }
  /// Coordinate along `axis` of local voxel `local` inside its block.
  KOKKOS_INLINE_FUNCTION static constexpr int local_coordinate(int local, int axis) {
    return axis == 0 ? local % B : (axis == 1 ? local / B % B : local / (B * B));
  }
  /// Direction number of the block at offset (ox, oy, oz), each in {-1, 0, 1}; oz is 0 in 2D.
  KOKKOS_INLINE_FUNCTION static constexpr int direction(int ox, int oy, int oz) {
    return (ox + 1) + 3 * (oy + 1) + (Dim == 3 ? 9 * (oz + 1) : 0);
  }
  /// Offset along `axis` of direction `dir`, in {-1, 0, 1}.
  KOKKOS_INLINE_FUNCTION static constexpr int direction_offset(int dir, int axis) {
    return axis == 0 ? dir % 3 - 1 : (axis == 1 ? dir / 3 % 3 - 1 : (Dim == 3 ? dir / 9 - 1 : 0));
  }
  /// side_masks()[dir]: the voxels of a block that touch the block at direction `dir` from it
  /// (its face, edge or corner on that side), what a voxel stencil of radius 1 reads across
  /// that side. Computed at compile time.
  static constexpr std::array<mask_type, directions> side_masks() {
    std::array<mask_type, directions> masks{};
    for (int dir = 0; dir < directions; ++dir) {
      for (int l = 0; l < voxels; ++l) {
        bool on_side = true;
        for (int a = 0; a < Dim; ++a) {
          const int o = direction_offset(dir, a), c = local_coordinate(l, a);
          on_side = on_side && (o == 0 || (o < 0 ? c == 0 : c == B - 1));
        }
        if (on_side) masks[std::size_t(dir)] |= mask_type(1) << l;
      }
    }
    return masks;
  }
};

}  // namespace karman
