// Explicit heat diffusion on several ranks through the installed Karman::core and Karman::comm,
// as a downstream Kokkos code writes it from the umbrella headers: stencil_halo_plan, the
// interior computed while the halos travel, then shared_ranges; global_coordinates to set the
// initial state and to compare; fill_closed_halos for walls. Every step on slabs and on blocks,
// SoA and Disaggregated, must equal bitwise the same kernel run on one rank over the whole box,
// periodic, and with walls along x and y (one boundary meaning on every grid, issue 55).
#include <karman/comm/comm.hpp>
#include <karman/core/core.hpp>

#include <mpi.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

using namespace karman;

/// One step of the 7-point explicit scheme, for any field type and neighbour accessor.
template <class F, class Nb>
struct Diffuse {
  typename F::const_type in;
  F out;
  typename Nb::topology_type topo;
  double r;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const Nb nb(v, topo);
    double laplacian = -6.0 * in(v, 0);
    for (int c = -1; c <= 1; c += 2) laplacian += in(nb.at(c, 0, 0), 0) + in(nb.at(0, c, 0), 0) + in(nb.at(0, 0, c), 0);
    out(v, 0) = in(v, 0) + r * laplacian;
  }
};

/// Temperature of the walls: what the halo past a closed side holds.
constexpr double wall = 2.0;

/// Initial state at global (x, y, z): exact in double, different on every voxel.
KOKKOS_INLINE_FUNCTION double initial(int x, int y, int z) { return double((x * 7 + y * 13 + z * 29) % 31) / 8.0; }

template <class F, class Partition>
void set_initial(const Partition& part, const F& f) {
  const auto coords = global_coordinates(part);
  for_each(
      "initial", part.owned(), Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        const Kokkos::Array<int, 3> g = coords(v);
        f(v, 0) = initial(g[0], g[1], g[2]);
      });
}

/// `steps` steps on `part`, numbered as `topo` says: exchange started, interior, exchange
/// finished, then the shared voxels (two ranges on slabs and blocks alike). The halos past
/// closed sides hold the wall's temperature (none on a periodic box).
template <class Nb, class F, class Partition, class Decomposition>
F run(const Decomposition& dec, const Partition& part, const typename Nb::topology_type& topo, int steps) {
  F a("a", part.groups(), 1), b("b", part.groups(), 1);
  set_initial(part, a);
  fill_closed_halos(a, part, wall);
  fill_closed_halos(b, part, wall);
  const HaloPlan plan = stencil_halo_plan(part, 1, StencilReach::faces);
  comm::MpiHaloExchanger<F> exchanger(dec);
  const Kokkos::DefaultExecutionSpace space;
  const double r = 0.125;
  for (int s = 0; s < steps; ++s) {
    exchanger.start(a, plan);
    for_each("interior", part, part.interior_group(), space, Diffuse<F, Nb>{a, b, topo, r});
    exchanger.finish();
    for (const VoxelRange& shared : shared_ranges(part))
      for_each("shared", shared, space, Diffuse<F, Nb>{a, b, topo, r});
    std::swap(a, b);
  }
  return a;
}

/// Owned voxels of `f` on `part` that differ from the one-rank result `ref` at the same global
/// voxel (bitwise: the same kernel on the same values).
template <class F, class Partition, class RefPartition, class Ref>
long long mismatches(const Partition& part, const F& f, const RefPartition& ref_part, const Ref& ref) {
  auto host = create_mirror_view(f);
  deep_copy(host, f);
  auto ref_host = create_mirror_view(ref);
  deep_copy(ref_host, ref);
  const auto coords = global_coordinates(part);
  const std::array<int, 3> ref_origin = ref_part.origin();
  long long bad = 0;
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    const Kokkos::Array<int, 3> g = coords(v);
    const index_t w = ref_part.index(g[0] - ref_origin[0], g[1] - ref_origin[1], g[2] - ref_origin[2]);
    bad += host(v, 0) != ref_host(w, 0);
  }
  return bad;
}

/// Slabs and blocks of this run's ranks against one rank, in `Layout`; mismatches on all ranks.
template <class Layout>
long long compare(const Extents& global, const std::array<int, 3>& block_dims, int steps) {
  using F = Field<double, Layout>;
  const comm::SlabDecomposition one(global, MPI_COMM_SELF, comm::SlabEnds::periodic);
  const F ref = run<Neighbours<3>, F>(one, one.partition(), one.partition().local(), steps);

  const comm::SlabDecomposition slabs(global, MPI_COMM_WORLD, comm::SlabEnds::periodic);
  const F on_slabs = run<Neighbours<3>, F>(slabs, slabs.partition(), slabs.partition().local(), steps);
  const comm::CartesianDecomposition blocks(global, MPI_COMM_WORLD, block_dims, {true, true, true});
  const F on_blocks =
      run<CartesianNeighbours<3>, F>(blocks, blocks.partition(), CartesianTopology::of(blocks.partition()), steps);

  // Walls along x and y: one rank, whose x and y are uncut, against the same blocks.
  const std::array<bool, 3> walls{false, false, true};
  const comm::CartesianDecomposition one_walled(global, MPI_COMM_SELF, {1, 1, 1}, walls);
  const F ref_walled = run<CartesianNeighbours<3>, F>(one_walled, one_walled.partition(),
                                                      CartesianTopology::of(one_walled.partition()), steps);
  const comm::CartesianDecomposition walled(global, MPI_COMM_WORLD, block_dims, walls);
  const F on_walled =
      run<CartesianNeighbours<3>, F>(walled, walled.partition(), CartesianTopology::of(walled.partition()), steps);
  long long bad[3] = {mismatches(slabs.partition(), on_slabs, one.partition(), ref),
                      mismatches(blocks.partition(), on_blocks, one.partition(), ref),
                      mismatches(walled.partition(), on_walled, one_walled.partition(), ref_walled)};
  MPI_Allreduce(MPI_IN_PLACE, bad, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (rank == 0) {
    std::printf(
        "heat_mpi_consumer: %s, %d ranks, %d steps on %dx%dx%d: slabs %lld, %dx%dx%d blocks %lld, with walls "
        "%lld voxels differ from one rank\n",
        Layout::name, ranks, steps, global.nx, global.ny, global.nz, bad[0], block_dims[0], block_dims[1],
        block_dims[2], bad[1], bad[2]);
  }
  return bad[0] + bad[1] + bad[2];
}

int main(int argc, char** argv) {
  comm::MpiContext mpi(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Blocks cut along every axis the rank count allows: 2 ranks 2x1x1, 4 ranks 2x2x1, 8 2x2x2.
  const std::array<int, 3> dims = ranks == 2   ? std::array<int, 3>{2, 1, 1}
                                  : ranks == 4 ? std::array<int, 3>{2, 2, 1}
                                  : ranks == 8 ? std::array<int, 3>{2, 2, 2}
                                               : std::array<int, 3>{1, 1, ranks};
  const Extents global{12, 10, 16};
  const int steps = 12;
  const long long bad = compare<SoA>(global, dims, steps) + compare<Disaggregated>(global, dims, steps);
  return bad == 0 ? 0 : 1;
}
