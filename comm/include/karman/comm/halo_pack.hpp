#pragma once
/// \file halo_pack.hpp
/// Gather and scatter kernels between a field and a contiguous message buffer, written once
/// against the field accessor so they serve every layout (Karrer's MPI recipe: "pack buffers
/// and ISend them"), one launch for all the pieces of an exchange. Functors, not lambdas: CUDA
/// forbids extended lambdas in private members.

#include <karman/core/extents.hpp>
#include <karman/core/group.hpp>

#include <Kokkos_Core.hpp>

#include <vector>

namespace karman::comm::detail {

/// Where component q of voxel v sits in a message buffer:
/// offset + (v - first_voxel) * voxel_stride + (q - component_base) * component_stride.
struct BufferMap {
  index_t offset = 0;            ///< first value of the message in the buffer
  index_t first_voxel = 0;       ///< voxel stored first
  index_t voxel_stride = 1;      ///< distance between consecutive voxels
  index_t component_stride = 1;  ///< distance between consecutive components
  int component_base = 0;        ///< component stored first
  int component_begin = 0;       ///< first component moved
  int component_end = 0;         ///< one past the last component moved

  /// Buffer index of component `comp` of voxel `voxel`.
  KOKKOS_INLINE_FUNCTION index_t index(index_t voxel, int comp) const {
    return offset + (voxel - first_voxel) * voxel_stride + (comp - component_base) * component_stride;
  }
};

/// Voxels gathered into (or scattered from) a message buffer, and where their values go there.
struct BufferPiece {
  VoxelRange voxels{};
  BufferMap map{};
};

/// Every piece of one direction (packs or unpacks) on the device: `starts(k)` is the number of
/// voxels in the pieces before piece k (starts(count) all of them), so that one kernel over all
/// the voxels moves them all. A launch per piece made a Cartesian block's exchange 40 and more
/// small kernels a step (docs/performance.md, 4 x H200).
template <class MemorySpace>
struct PieceTable {
  Kokkos::View<BufferPiece*, MemorySpace> pieces;
  Kokkos::View<index_t*, MemorySpace> starts;
  int count = 0;
  index_t voxels = 0;

  PieceTable() = default;
  explicit PieceTable(const std::vector<BufferPiece>& list)
      : pieces("karman::comm::halo_pieces", list.size()),
        starts("karman::comm::halo_piece_starts", list.size() + 1),
        count(int(list.size())) {
    const auto host_pieces = Kokkos::create_mirror_view(pieces);
    const auto host_starts = Kokkos::create_mirror_view(starts);
    for (std::size_t k = 0; k < list.size(); ++k) {
      host_pieces(k) = list[k];
      host_starts(k) = voxels;
      voxels += list[k].voxels.size();
    }
    host_starts(list.size()) = voxels;
    Kokkos::deep_copy(pieces, host_pieces);
    Kokkos::deep_copy(starts, host_starts);
  }
};

/// Moves the mapped components of every voxel of a PieceTable between the field and the buffer:
/// field to buffer when `Pack`, buffer to field otherwise. Thread i finds its piece by bisection
/// of the starts; consecutive threads take consecutive voxels of a piece. The unpacked pieces of
/// an exchange write disjoint (voxel, component) slots, so their order does not matter: a halo
/// cell's population comes from one neighbour, and AA's return plan sends back only what the
/// returning block wrote.
template <bool Pack, class FieldType, class BufferView, class MemorySpace>
struct MovePieces {
  FieldType field;
  BufferView buffer;
  PieceTable<MemorySpace> table;

  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    int lo = 0, hi = table.count - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (table.starts(mid) <= i) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const BufferPiece& piece = table.pieces(lo);
    const index_t voxel = piece.voxels.begin + (i - table.starts(lo));
    for (int q = piece.map.component_begin; q < piece.map.component_end; ++q) {
      if constexpr (Pack) {
        buffer(piece.map.index(voxel, q)) = field(voxel, q);
      } else {
        field(voxel, q) = buffer(piece.map.index(voxel, q));
      }
    }
  }
};

/// Launches MovePieces over every voxel of `table` on `space` (nothing when it is empty).
template <bool Pack, class ExecutionSpace, class FieldType, class BufferView, class MemorySpace>
void move_pieces(const ExecutionSpace& space, const FieldType& field, const BufferView& buffer,
                 const PieceTable<MemorySpace>& table) {
  if (table.voxels == 0) return;
  Kokkos::parallel_for(Pack ? "karman::comm::pack_halo" : "karman::comm::unpack_halo",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<index_t>>(space, 0, table.voxels),
                       MovePieces<Pack, FieldType, BufferView, MemorySpace>{field, buffer, table});
}

}  // namespace karman::comm::detail
