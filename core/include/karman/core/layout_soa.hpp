#pragma once
/// \file layout_soa.hpp
/// Structure of arrays over the whole partition: coalesced on GPUs, but a neighbour exchange
/// needs one message per component (Meneghin & Mahmoud Table III).

#include <karman/core/group.hpp>
#include <karman/core/memory_block.hpp>

#include <vector>

namespace karman {

/// SoA layout tag: offset(v, q) = q * S + v, S = padded_stride(N) >= N.
struct SoA {
  static constexpr const char* name = "soa";

  /// Component stride for N voxels: N rounded up to a multiple of 32 values, plus 32 more when
  /// that multiple is even. Unpadded, a voxel count that is a multiple of 1024 (128 x 128 planes)
  /// puts all 2Q streams of an update at the same offset modulo 4 KiB, so on CPUs they compete
  /// for one cache set and run about 2x slower (docs/performance.md §3.4); an odd number of
  /// 32-value steps spreads them over distinct sets. 32 values keep every component start on a
  /// whole GPU warp's transaction (128 bytes of float): 16 cost the H100 9 % in SoA AA.
  static constexpr index_t padded_stride(index_t voxels) {
    const index_t step = 32;
    const index_t rounded = (voxels + step - 1) / step * step;
    return (rounded / step) % 2 == 0 ? rounded + step : rounded;
  }

  /// SoA offset mapping over all voxels of a group table.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components)
        : m_stride(padded_stride(groups.total())), m_components(components) {}

    /// Storage offset of component `comp` of voxel `voxel`.
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const { return comp * m_stride + voxel; }
    /// Storage elements the field needs (the padding of each component included).
    index_t size() const { return m_stride * m_components; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): one per component (the padding separates them).
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (int q = comps.begin; q < comps.end; ++q) append_coalesced(out, {offset(voxels.begin, q), voxels.size()});
      return out;
    }

   private:
    index_t m_stride = 0;
    int m_components = 0;
  };
};

}  // namespace karman
