#pragma once
/// \file layout_disaggregated.hpp
/// Disaggregated SoA (Meneghin & Mahmoud §III, Fig. 5b): the groups halo_lo | shared_lo | interior |
/// shared_hi | halo_hi follow one another, each laid out SoA over its own voxels. Any
/// (group, component range) is then one contiguous block, so a neighbour exchange is one
/// message per neighbour and direction with no packing (Meneghin & Mahmoud Table III).

#include <karman/core/group.hpp>
#include <karman/core/memory_block.hpp>

#include <vector>

namespace karman {

/// Disaggregated layout tag: offset(v, q) = begin_g * Q + q * size_g + (v - begin_g), g = group(v).
struct Disaggregated {
  static constexpr const char* name = "disaggregated";

  /// Disaggregated offset mapping over the groups of a partition.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components) : m_components(components), m_voxels(groups.total()) {
      for (int g = 0; g < group_count; ++g) {
        m_begin[g] = groups.ranges[g].begin;
        m_size[g] = groups.ranges[g].size();
        m_base[g] = m_begin[g] * (components - 1);
      }
    }

    /// Where the components of one group's voxels lie: component q of voxel v of the group is
    /// at base + q * stride + v. A kernel that touches many components of voxels whose group it
    /// knows resolves the span once (span_of) instead of once per access.
    struct group_span {
      index_t base = 0;    ///< begin_g * (Q - 1)
      index_t stride = 0;  ///< voxels in the group
    };

    /// Group holding a voxel: the last group whose range starts at or before it
    /// (branch-free; empty groups share their begin with the next group and are skipped).
    KOKKOS_INLINE_FUNCTION int group_of(index_t voxel) const {
      return int(voxel >= m_begin[1]) + int(voxel >= m_begin[2]) + int(voxel >= m_begin[3]) + int(voxel >= m_begin[4]);
    }
    /// The span of the group holding `voxel`.
    KOKKOS_INLINE_FUNCTION group_span span_of(index_t voxel) const {
      const int g = group_of(voxel);
      return {m_base[g], m_size[g]};
    }
    /// Storage offset of component `comp` of `voxel`, which lies in the group of `span`.
    KOKKOS_INLINE_FUNCTION index_t offset(const group_span& span, index_t voxel, int comp) const {
      return span.base + comp * span.stride + voxel;
    }
    /// Storage offset of component `comp` of voxel `voxel`.
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const { return offset(span_of(voxel), voxel, comp); }
    /// Storage elements the field needs.
    index_t size() const { return m_voxels * m_components; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): one per group touched when the range covers
    /// whole groups (the messaging case), else one per group and component.
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (int g = 0; g < group_count; ++g) {
        const index_t lo = voxels.begin > m_begin[g] ? voxels.begin : m_begin[g];
        const index_t hi = voxels.end < m_begin[g] + m_size[g] ? voxels.end : m_begin[g] + m_size[g];
        for (int q = comps.begin; q < comps.end && lo < hi; ++q) append_coalesced(out, {offset(lo, q), hi - lo});
      }
      return out;
    }

   private:
    int m_components = 0;
    index_t m_voxels = 0;
    index_t m_begin[group_count] = {};
    index_t m_size[group_count] = {};
    index_t m_base[group_count] = {};
  };
};

}  // namespace karman
