#pragma once
/// \file sparse_block_edge.hpp
/// The block edge of the LBM solver's block-sparse grid, for the solver, its memory estimate
/// and its factory's checks.

namespace karman::lbm {

/// Block edge of the sparse solver's grid: 4^3 blocks in 3D (Meneghin & Mahmoud §IV), 8^2 in
/// 2D, so a block is 64 voxels, one 64-bit mask, in both.
template <int Dim>
inline constexpr int sparse_block_edge = Dim == 3 ? 4 : 8;

}  // namespace karman::lbm
