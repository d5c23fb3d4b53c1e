#pragma once
/// \file layout_soa.hpp
/// Structure of arrays over the whole partition: coalesced on GPUs, but a neighbour exchange
/// needs one message per component (Meneghin & Mahmoud Table III).

#include <karman/core/group.hpp>
#include <karman/core/memory_block.hpp>

#include <vector>

namespace karman {

/// SoA layout tag: offset(v, q) = q * N + v.
struct SoA {
  static constexpr const char* name = "soa";

  /// SoA offset mapping over all voxels of a group table.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components) : m_voxels(groups.total()), m_components(components) {}

    /// Storage offset of component `comp` of voxel `voxel`.
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const { return comp * m_voxels + voxel; }
    /// Storage elements the field needs.
    index_t size() const { return m_voxels * m_components; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): one per component unless voxels is everything.
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (int q = comps.begin; q < comps.end; ++q) append_coalesced(out, {offset(voxels.begin, q), voxels.size()});
      return out;
    }

   private:
    index_t m_voxels = 0;
    int m_components = 0;
  };
};

}  // namespace karman
