#pragma once
/// \file cartesian_neighbours.hpp
/// Voxel x + c for a stencil of radius 1 in a CartesianPartition's cell numbering
/// (cartesian_partition.hpp), as kernels need it: the answers of Neighbours (neighbours.hpp) for
/// a box whose halos lie along any axis and whose faces, edges and corners are each one
/// consecutive group (Meneghin & Mahmoud §III, Fig. 5b, generalised to blocks).

#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/extents.hpp>

#include <Kokkos_Core.hpp>

namespace karman {

/// What a kernel needs of a CartesianPartition's numbering, trivially copyable: per axis the
/// first local coordinate and the layers of the five classes, the first voxel of each of the
/// 5^3 cells, and the non-empty cells sorted by first voxel (to find a voxel's cell).
struct CartesianTopology {
  int class_begin[3][5] = {};
  int class_size[3][5] = {};
  index_t cell_begin[125] = {};
  int cells = 0;                   ///< non-empty cells
  index_t sorted_begin[125] = {};  ///< first voxel of the k-th non-empty cell in memory order
  int sorted_cell[125] = {};       ///< its cell number, x class fastest

  /// The numbering of `p`.
  static CartesianTopology of(const CartesianPartition& p) {
    CartesianTopology t;
    for (int a = 0; a < 3; ++a)
      for (int k = 0; k < 5; ++k) {
        t.class_begin[a][k] = p.class_begin(a, CartesianPartition::AxisClass(k));
        t.class_size[a][k] = p.class_size(a, CartesianPartition::AxisClass(k));
      }
    for (int c = 0; c < 125; ++c) {
      const int k[3] = {c % 5, c / 5 % 5, c / 25};
      if (t.class_size[0][k[0]] == 0 || t.class_size[1][k[1]] == 0 || t.class_size[2][k[2]] == 0) continue;
      t.cell_begin[c] = p.index(t.class_begin[0][k[0]], t.class_begin[1][k[1]], t.class_begin[2][k[2]]);
      // Insertion by first voxel: at most 125 cells, once per partition.
      int at = t.cells++;
      while (at > 0 && t.sorted_begin[at - 1] > t.cell_begin[c]) {
        t.sorted_begin[at] = t.sorted_begin[at - 1];
        t.sorted_cell[at] = t.sorted_cell[at - 1];
        --at;
      }
      t.sorted_begin[at] = t.cell_begin[c];
      t.sorted_cell[at] = c;
    }
    return t;
  }

  /// Cell holding `voxel`: the last non-empty cell beginning at or before it (binary search).
  KOKKOS_INLINE_FUNCTION int cell_of(index_t voxel) const {
    int lo = 0, hi = cells - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (sorted_begin[mid] <= voxel)
        lo = mid;
      else
        hi = mid - 1;
    }
    return sorted_cell[lo];
  }

  /// Local coordinate of `voxel` along `axis` (CartesianPartition::coordinates), as
  /// Extents::coordinate answers it for a box numbered x fastest: what inflow profiles read.
  KOKKOS_INLINE_FUNCTION int coordinate(index_t voxel, int axis) const {
    const int cell = cell_of(voxel);
    const int k[3] = {cell % 5, cell / 5 % 5, cell / 25};
    const index_t sx = class_size[0][k[0]], sy = class_size[1][k[1]];
    const index_t in = voxel - cell_begin[cell];
    const index_t l = axis == 0 ? in % sx : axis == 1 ? in / sx % sy : in / (sx * sy);
    return class_begin[axis][k[axis]] + int(l);
  }
};

/// The 3^Dim neighbours of one voxel in a CartesianPartition's numbering, c in {-1, 0, 1} per
/// axis. Along an axis without a halo (a periodic axis of one block, other than the slab axis)
/// the box wraps around, as Neighbours' in-plane axes do; from an owned voxel a step across the
/// block's side lands in the halo, which a neighbour's message, a local periodic copy or the
/// user (a closed side: fill_closed_halos) fills. A voxel's cell and its
/// coordinates in it are found once; each neighbour is then a class step per axis (a look-up of
/// three precomputed pairs) and one cell-table look-up, whether or not it lies in another cell.
template <int Dim>
class CartesianNeighbours {
  static_assert(Dim == 2 || Dim == 3, "karman::CartesianNeighbours: Dim must be 2 or 3");

 public:
  /// What the constructor takes besides the voxel (see Neighbours::topology_type).
  using topology_type = CartesianTopology;

  KOKKOS_INLINE_FUNCTION CartesianNeighbours(index_t voxel, const CartesianTopology& t) : m_voxel(voxel), m_t(&t) {
    const int cell = t.cell_of(voxel);
    const int k[3] = {cell % 5, cell / 5 % 5, cell / 25};
    const index_t sx = t.class_size[0][k[0]], sy = t.class_size[1][k[1]];
    const index_t in = voxel - t.cell_begin[cell];
    const int l[3] = {int(in % sx), int(in / sx % sy), int(in / (sx * sy))};
    for (int a = 0; a < 3; ++a)
      for (int c = -1; c <= 1; ++c) step(a, k[a], l[a], c, m_class[a][c + 1], m_layer[a][c + 1]);
  }

  /// The voxel whose neighbours these are.
  KOKKOS_INLINE_FUNCTION index_t voxel() const { return m_voxel; }
  /// Local index of voxel + (cx, cy, cz), each in {-1, 0, 1}; cz is 0 in 2D.
  KOKKOS_INLINE_FUNCTION index_t at(int cx, int cy, int cz = 0) const {
    KOKKOS_ASSERT(cx >= -1 && cx <= 1 && cy >= -1 && cy <= 1 && cz >= -1 && cz <= 1 && (Dim == 3 || cz == 0));
    const int kx = m_class[0][cx + 1], ky = m_class[1][cy + 1], kz = m_class[2][cz + 1];
    return m_t->cell_begin[kx + 5 * (ky + 5 * kz)] + m_layer[0][cx + 1] +
           index_t(m_t->class_size[0][kx]) *
               (m_layer[1][cy + 1] + index_t(m_t->class_size[1][ky]) * m_layer[2][cz + 1]);
  }

 private:
  /// Class and layer one step c along `axis` from layer l of class k: the next non-empty class
  /// past either end of this one, wrapping round the box past its ends.
  KOKKOS_INLINE_FUNCTION void step(int axis, int k, int l, int c, int& to_class, int& to_layer) const {
    const int* size = m_t->class_size[axis];
    l += c;
    if (l < 0) {
      do k = (k + 4) % 5;
      while (size[k] == 0);
      l = size[k] - 1;
    } else if (l >= size[k]) {
      do k = (k + 1) % 5;
      while (size[k] == 0);
      l = 0;
    }
    to_class = k;
    to_layer = l;
  }

  index_t m_voxel;
  const CartesianTopology* m_t;
  int m_class[3][3];  ///< m_class[axis][c + 1]: class of the neighbour one step c along axis
  int m_layer[3][3];  ///< m_layer[axis][c + 1]: its layer in that class
};

}  // namespace karman
