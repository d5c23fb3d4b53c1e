// The memory estimate of a block-sparse solver: the grid's blocking of SparseSample's active
// voxels, counted on the host, times what SparseSolverCore and BlockSparseGrid allocate per
// block and per voxel.
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/sparse/block_shape.hpp>
#include <karman/core/sparse/block_sparse_grid.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/sparse_memory.hpp>
#include <karman/lbm/sparse_sample.hpp>
#include <karman/lbm/variants.hpp>

#include <bitset>
#include <vector>

namespace karman::lbm {
namespace {

/// The layout a registry layout means on a grid of `BlockVoxels`-voxel blocks (SparseLayout in
/// sparse_solver.hpp: CSoA is chunked by the block).
template <class Layout, int BlockVoxels>
struct OnBlocks {
  using type = Layout;
};
template <int Alpha, int BlockVoxels>
struct OnBlocks<CSoA<Alpha>, BlockVoxels> {
  using type = CSoA<BlockVoxels>;
};

/// Values one lattice of `q` populations holds on `voxels` voxels in the named layout: its
/// mapping's size, padding included (SoA pads each population's stride).
template <int BlockVoxels>
std::size_t lattice_values(const std::string& layout, index_t voxels, int q) {
  return dispatch<Layouts>(layout, [&](auto l) {
    using Layout = typename OnBlocks<tag_type<decltype(l)>, BlockVoxels>::type;
    return Field<float, Layout, Kokkos::HostSpace>::required_allocation_size(GroupTable::single(voxels), q) /
           sizeof(float);
  });
}

template <int Dim>
SparseMemoryEstimate estimate(const SolverSetup& setup) {
  constexpr int B = sparse_block_edge<Dim>;
  using Shape = BlockShape<Dim, B>;
  // The sample's blocks are the grid's; classifying them needs no velocity set (flag words do).
  const SparseSample sample(setup, {});
  const Extents& e = setup.global;
  const std::size_t lattice_blocks = std::size_t((e.nx + B - 1) / B) * std::size_t((e.ny + B - 1) / B) *
                                     std::size_t(Dim == 3 ? (e.nz + B - 1) / B : 1);
  SparseMemoryEstimate m;
  for (std::size_t k = 0; k < sample.block_count(); ++k) {
    m.fluid_voxels += index_t(std::bitset<64>(sample.active_mask(k) & ~sample.solid_mask(k)).count());
  }
  m.blocks = index_t(sample.block_count());
  m.voxels = m.blocks * Shape::voxels;
  const auto n = std::size_t(m.blocks), v = std::size_t(m.voxels);
  const std::size_t lattices = setup.variant.pattern.name() == "aa" ? 1 : 2;
  m.population_bytes = lattices *
                       lattice_values<Shape::voxels>(setup.variant.layout.name(), m.voxels,
                                                     lattice_populations(setup.variant.lattice.name())) *
                       std::size_t(precision_bytes(setup.variant.precision.name()));
  m.flag_bytes = v * sizeof(flag_t);
  // BlockSparseGrid's device tables: a row of 3^Dim neighbour blocks, a voxel mask, a boundary
  // bit (32 to a word) and three origin coordinates per block.
  m.grid_bytes = n * Shape::directions * sizeof(block_index_t) + n * sizeof(typename Shape::mask_type) +
                 (n + 31) / 32 * sizeof(std::uint32_t) + 3 * n * sizeof(int);
  m.initial_state_bytes = v * 4 * sizeof(double);
  m.moments_bytes = v * 4 * sizeof(double);
  // Host: the sample's masks (each rank its planes), the grid's host copies plus its block
  // look-up (a table over the lattice where it has at most max_table_entries_per_block entries
  // a stored block, else the stored blocks' sorted keys: BlockSparseGrid::index_stored_blocks),
  // and the initial flags, density and velocity built on the host.
  constexpr auto table_limit = std::size_t(BlockSparseGrid<Dim, B>::max_table_entries_per_block);
  const std::size_t lookup = lattice_blocks <= table_limit * n ? lattice_blocks * sizeof(block_index_t)
                                                               : n * (sizeof(index_t) + sizeof(block_index_t));
  m.host_bytes = sample.host_bytes() + m.grid_bytes + lookup + v * (sizeof(flag_t) + 4 * sizeof(double));
  return m;
}

}  // namespace

SparseMemoryEstimate estimate_sparse_memory(const SolverSetup& setup) {
  return lattice_dimension(setup.variant.lattice.name()) == 3 ? estimate<3>(setup) : estimate<2>(setup);
}

}  // namespace karman::lbm
