#pragma once
/// \file layout_disaggregated.hpp
/// Disaggregated SoA (Meneghin & Mahmoud §III, Fig. 5b): the groups of a partition (a slab's
/// halo | shared | interior | shared | halo) follow one another, each laid out SoA over its own
/// voxels. Any (group, component range) is then one contiguous block, so a neighbour exchange
/// is one message per neighbour and direction with no packing (Meneghin & Mahmoud Table III).

#include <karman/core/backend_traits.hpp>
#include <karman/core/error.hpp>
#include <karman/core/group.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/core/memory_block.hpp>

#include <string>
#include <type_traits>
#include <vector>

namespace karman {

/// Disaggregated layout over at most MaxGroups groups: offset(v, q) = start_g + q * stride_g +
/// (v - begin_g), g = group(v), where start_g is where the group's storage begins (the groups
/// before it, Q * stride each) and stride_g its component stride: the group's voxel count for
/// the halo and shared groups, so that every (group, component range) a message carries is one
/// contiguous block, and SoA's padded stride for the interior group, whose Q streams of a plane
/// count that is a multiple of 1024 would otherwise share one cache set on CPUs (layout_soa.hpp;
/// the D3Q19 row kernel ran at 20 % of the copy bandwidth unpadded, 85 % padded). The interior
/// is never sent, so messages keep Meneghin & Mahmoud's one block per neighbour.
///
/// MaxGroups is compile-time so that the group table travels with the kernel by value (3 values
/// per group). The group of a voxel is the last group beginning at or before it. On a CPU it is
/// found by counting the group starts at or before the voxel, independent comparisons that the
/// compiler vectorises (a binary search's dependent steps were 3 times slower), and past 8
/// groups (a Cartesian block's 53) the largest group, a block's interior, is tried first with
/// one comparison, so the lookups of a sweep, nearly all in the interior, do not grow with the
/// group count. A GPU thread vectorises nothing: past 8 groups its device pass searches the
/// starts instead of counting them (6 dependent steps for 53 groups; the count inlined at a
/// stencil's 63 lookups a voxel ran at half the speed on the H200). There span_of, once per
/// voxel, tries the largest group first as on a CPU, while offset(voxel, comp), at every
/// access, searches alone: the test first was faster once per voxel and slower at every access
/// (docs/performance.md, "Disaggregated's group lookup").
template <int MaxGroups>
struct BasicDisaggregated {
  static_assert(MaxGroups >= 1 && MaxGroups <= GroupTable::capacity, "karman::BasicDisaggregated: 1..64 groups");
  static constexpr const char* name = "disaggregated";
  /// Most groups a field of this layout can be built on.
  static constexpr int max_groups = MaxGroups;

  /// Disaggregated offset mapping over the groups of a partition.
  class mapping {
   public:
    mapping() = default;
    mapping(const GroupTable& groups, int components) : m_components(components) {
      const index_t voxels = groups.total();
      if (groups.size() > MaxGroups) {
        throw Error("karman::Disaggregated: a table of " + std::to_string(groups.size()) +
                    " groups needs BasicDisaggregated<" + std::to_string(groups.size()) +
                    "> or larger (this one holds " + std::to_string(MaxGroups) + "; Disaggregated holds " +
                    std::to_string(max_partition_groups) + ", any partition's)");
      }
      // Unused entries begin past the last voxel, so no voxel counts them.
      index_t start = 0;
      for (int g = 0; g < MaxGroups; ++g) {
        const VoxelRange r = g < groups.size() ? groups.range(g) : VoxelRange{voxels, voxels};
        const bool padded = g < groups.size() && groups[g].role == GroupRole::interior && !r.empty();
        m_begin[g] = r.begin;
        m_stride[g] = padded ? SoA::padded_stride(r.size()) : r.size();
        m_base[g] = start - r.begin;
        start += m_stride[g] * components;
      }
      m_storage = start;
      m_voxels = voxels;
      for (int g = 0; g < groups.size(); ++g) {
        if (std::make_unsigned_t<index_t>(groups.range(g).size()) > m_largest_size) {
          m_largest = g;
          m_largest_begin = groups.range(g).begin;
          m_largest_size = std::make_unsigned_t<index_t>(groups.range(g).size());
          m_largest_span = {m_base[g], m_stride[g]};
        }
      }
    }

    /// Where the components of one group's voxels lie: component q of voxel v of the group is
    /// at base + q * stride + v. A kernel that touches many components of voxels whose group it
    /// knows resolves the span once (span_of) instead of once per access.
    struct group_span {
      index_t base = 0;    ///< start_g - begin_g
      index_t stride = 0;  ///< component stride of the group
    };

    /// Group holding a voxel: the last group whose range starts at or before it (empty groups
    /// share their begin with the next group and are counted past).
    KOKKOS_INLINE_FUNCTION int group_of(index_t voxel) const {
      if constexpr (MaxGroups > 8 && KARMAN_DEVICE_PASS) {
        return searched_group(voxel);
      } else if constexpr (MaxGroups > 8) {
        if (in_largest(voxel)) return m_largest;
      }
      return counted_group(voxel);
    }
    /// The span of the group holding `voxel`, the largest group tried first past 8 groups: a
    /// kernel resolves a voxel's span once for all its components.
    KOKKOS_INLINE_FUNCTION group_span span_of(index_t voxel) const {
      if constexpr (MaxGroups > 8) {
        if (in_largest(voxel)) return m_largest_span;
      }
      const int g = other_group(voxel);
      return {m_base[g], m_stride[g]};
    }
    /// Storage offset of component `comp` of `voxel`, which lies in the group of `span`.
    KOKKOS_INLINE_FUNCTION index_t offset(const group_span& span, index_t voxel, int comp) const {
      return span.base + comp * span.stride + voxel;
    }
    /// Storage offset of component `comp` of voxel `voxel`. A GPU's device pass looks the group
    /// up by the binary search alone, which ran a stencil's 63 lookups a voxel faster than
    /// trying the largest group first (docs/performance.md, "Disaggregated's group lookup").
    KOKKOS_INLINE_FUNCTION index_t offset(index_t voxel, int comp) const {
      if constexpr (MaxGroups > 8 && KARMAN_DEVICE_PASS) {
        const int g = searched_group(voxel);
        return m_base[g] + comp * m_stride[g] + voxel;
      } else {
        return offset(span_of(voxel), voxel, comp);
      }
    }
    /// Storage elements the field needs (the interior's padding included).
    index_t size() const { return m_storage; }
    /// Components per voxel.
    KOKKOS_INLINE_FUNCTION int components() const { return m_components; }
    /// Contiguous runs covering (voxels, comps): one per halo or shared group touched when the
    /// range covers whole groups (the messaging case), else one per group and component.
    std::vector<MemoryBlock> blocks(VoxelRange voxels, ComponentRange comps) const {
      std::vector<MemoryBlock> out;
      for (int g = 0; g < MaxGroups; ++g) {
        const index_t lo = voxels.begin > m_begin[g] ? voxels.begin : m_begin[g];
        const index_t end = g + 1 < MaxGroups ? m_begin[g + 1] : m_voxels;
        const index_t hi = voxels.end < end ? voxels.end : end;
        for (int q = comps.begin; q < comps.end && lo < hi; ++q) append_coalesced(out, {offset(lo, q), hi - lo});
      }
      return out;
    }

   private:
    /// Whether `voxel` lies in the largest group: one unsigned comparison, a voxel before the
    /// group wrapping past its size.
    KOKKOS_INLINE_FUNCTION bool in_largest(index_t voxel) const {
      return std::make_unsigned_t<index_t>(voxel - m_largest_begin) < m_largest_size;
    }
    /// The group of a voxel outside the largest group (or of any voxel up to 8 groups): counted
    /// on a CPU, searched in a GPU compiler's device pass.
    KOKKOS_INLINE_FUNCTION int other_group(index_t voxel) const {
      if constexpr (MaxGroups > 8 && KARMAN_DEVICE_PASS) {
        return searched_group(voxel);
      } else {
        return counted_group(voxel);
      }
    }
    /// The group of `voxel` by a binary search of the group starts (6 steps for 53 groups):
    /// m_begin[g] <= voxel holds throughout, each step halving the groups left after g.
    KOKKOS_INLINE_FUNCTION int searched_group(index_t voxel) const {
      int g = 0;
      KARMAN_UNROLL
      for (int n = MaxGroups; n > 1; n -= n / 2) g = voxel >= m_begin[g + n / 2] ? g + n / 2 : g;
      return g;
    }
    /// The group of `voxel` by counting the group starts at or before it.
    KOKKOS_INLINE_FUNCTION int counted_group(index_t voxel) const {
      int g = 0;
      KARMAN_UNROLL
      for (int k = 1; k < MaxGroups; ++k) g += int(voxel >= m_begin[k]);
      return g;
    }

    int m_components = 0;
    index_t m_storage = 0;
    index_t m_voxels = 0;
    index_t m_begin[MaxGroups] = {};  ///< groups are consecutive: group g ends where g + 1 begins
    index_t m_stride[MaxGroups] = {};
    index_t m_base[MaxGroups] = {};
    int m_largest = 0;  ///< the group with the most voxels, looked up first past 8 groups
    index_t m_largest_begin = 0;
    std::make_unsigned_t<index_t> m_largest_size = 0;
    group_span m_largest_span{};
  };
};

/// The Disaggregated layout of any partition: a slab's 5 groups, a Cartesian block's up to 53.
using Disaggregated = BasicDisaggregated<max_partition_groups>;
/// The Disaggregated layout of a slab (SlabPartition, or a block cut along the slab axis only):
/// 5 groups, looked up by 4 comparisons (no largest-group test, which would be a branch for
/// the few shared and halo planes' sake), and a ninth of Disaggregated's by-value size, for
/// kernels that never see a block.
using SlabDisaggregated = BasicDisaggregated<5>;

}  // namespace karman
