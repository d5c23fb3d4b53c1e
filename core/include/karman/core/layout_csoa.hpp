#pragma once
/// \file layout_csoa.hpp
/// Chunked SoA (Chen et al. Eq. 9): the components of Alpha consecutive voxels are stored
/// together, SoA inside the chunk, so a warp reads Alpha consecutive values of one component
/// while a voxel's components stay within Alpha * Q elements of each other.

#include <karman/core/group.hpp>
#include <karman/core/memory_block.hpp>

#include <vector>

namespace karman {

/// CSoA layout tag: offset(v, q) = (v / Alpha) * Alpha * Q + q * Alpha + v % Alpha.
template <int Alpha>
struct CSoA {
  static_assert(Alpha > 0 && (Alpha & (Alpha - 1)) == 0, "karman::CSoA: Alpha must be a positive power of two");
  static constexpr const char* name = "csoa";
  /// Voxels per chunk.
  static constexpr int alpha = Alpha;

  /// CSoA offset mapping; storage is padded to a whole number of chunks.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components) : m_voxels(groups.total()), m_components(components) {}

    /// Storage offset of component `comp` of voxel `voxel`.
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const {
      return (voxel / Alpha) * (index_t(Alpha) * m_components) + comp * Alpha + voxel % Alpha;
    }
    /// Storage elements the field needs (whole chunks).
    index_t size() const { return (m_voxels + Alpha - 1) / Alpha * Alpha * m_components; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): at most one per chunk and component.
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (index_t chunk = voxels.begin / Alpha * Alpha; chunk < voxels.end; chunk += Alpha) {
        const index_t lo = chunk > voxels.begin ? chunk : voxels.begin;
        const index_t hi = chunk + Alpha < voxels.end ? chunk + Alpha : voxels.end;
        for (int q = comps.begin; q < comps.end; ++q) append_coalesced(out, {offset(lo, q), hi - lo});
      }
      return out;
    }

   private:
    index_t m_voxels = 0;
    int m_components = 0;
  };
};

}  // namespace karman
