#pragma once
/// \file layout_aos.hpp
/// Array of structures: a voxel's Q components are adjacent. The baseline; uncoalesced on GPUs.

#include <karman/core/group.hpp>
#include <karman/core/memory_block.hpp>

#include <vector>

namespace karman {

/// AoS layout tag: offset(v, q) = v * Q + q.
struct AoS {
  static constexpr const char* name = "aos";

  /// AoS offset mapping over all voxels of a group table.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components) : m_voxels(groups.total()), m_components(components) {}

    /// Storage offset of component `comp` of voxel `voxel`.
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const { return voxel * m_components + comp; }
    /// Storage elements the field needs.
    index_t size() const { return m_voxels * m_components; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): one when comps is all of [0, Q), else one per voxel.
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (index_t v = voxels.begin; v < voxels.end; ++v) append_coalesced(out, {offset(v, comps.begin), comps.size()});
      return out;
    }

   private:
    index_t m_voxels = 0;
    int m_components = 0;
  };
};

}  // namespace karman
