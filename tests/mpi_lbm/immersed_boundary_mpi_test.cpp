// Immersed boundaries under MPI (issue 14 item 4): a body whose markers' stencils cross slab
// boundaries gives, on 2, 3 and 4 ranks, the force and fields of the single-rank run bit for bit:
// a stencil cut between two ranks adds its parts in another order, and the atomic spreading adds
// in thread order, but both sum in fixed point (fixed_point_sum.hpp), where the order of the
// terms does not change the bits.
#include "mpi_lbm_support.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/lbm/cases/cylinder.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>

namespace {

using namespace karman;
using namespace karman::lbm;

class ImmersedBoundaryMpi : public test::MpiSolverTest {};

/// Largest |a - b| over the moments (rho and u) of every voxel.
double max_difference(const test::HostMoments& a, const test::HostMoments& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.rho.size(); ++i) d = std::max(d, std::fabs(a.rho[i] - b.rho[i]));
  for (std::size_t i = 0; i < a.u.size(); ++i) d = std::max(d, std::fabs(a.u[i] - b.u[i]));
  return d;
}

/// The body force of `setup` after `steps`, summed over the ranks of the decomposed run and on one
/// rank, and the fields; checked on rank 0. Returns the single-rank force there (zeros elsewhere).
std::array<double, 3> expect_invariant(SolverSetup setup, int steps, const std::string& what, int rank, int ranks) {
  SolverSetup single = setup;
  single.communicator = comm::Ranks();
  setup.rank = rank;
  setup.ranks = ranks;
  setup.communicator = comm::Ranks(MPI_COMM_WORLD);
  const comm::Ranks world(MPI_COMM_WORLD);

  auto decomposed = make_solver(setup);
  EXPECT_EQ(decomposed->immersed_markers(), setup.immersed_body.markers.size()) << what;
  decomposed->advance(steps);
  std::array<double, 3> force = decomposed->body_force();
  for (double& f : force) f = world.sum(f);
  const auto gathered = test::gather_moments(*decomposed, MPI_COMM_WORLD);
  if (rank != 0) return {0, 0, 0};

  auto reference = make_solver(single);
  reference->advance(steps);
  const std::array<double, 3> expected = reference->body_force();
  const auto fields = test::host_moments(*reference);
  const std::string where = what + " after " + std::to_string(steps) + " steps on " + std::to_string(ranks) + " ranks";
  const double scale = std::max({std::fabs(expected[0]), std::fabs(expected[1]), std::fabs(expected[2])});
  EXPECT_GT(scale, 0.0) << where;
  for (int d = 0; d < 3; ++d) EXPECT_EQ(force[std::size_t(d)], expected[std::size_t(d)]) << where << ", axis " << d;
  EXPECT_EQ(test::slabs_in_global_order(gathered, setup.global), "") << where;
  EXPECT_EQ(max_difference(gathered.fields, fields), 0.0) << where;
  return expected;
}

/// 2D-1 with immersed boundaries: the cylinder (centre 0.2 of the 0.41 channel, D = 8) spans the
/// planes y = 12 .. 21 of 35, which every boundary of 2, 3 and 4 slabs cuts or nearly touches.
TEST_F(ImmersedBoundaryMpi, Cylinder2D) {
  const Variant v{"d2q9", "double", "soa", "trt", "ab"};
  if (test::compiled(v)) {
    cases::CylinderParams p;
    p.diameter = 8;
    p.immersed.enabled = true;
    expect_invariant(cases::cylinder_setup(p, v), 60, "2D-1 ib", rank, ranks);
  }
}

/// 3D-1Z with immersed boundaries: the cylinder spans the duct along z, the slab axis, so every
/// rank holds markers, and the stencils of every ring next to a slab boundary are cut by it.
TEST_F(ImmersedBoundaryMpi, Cylinder3D) {
  const Variant v{"d3q19", "double", "soa", "trt", "ab"};
  if (test::compiled(v)) {
    cases::CylinderParams p;
    p.benchmark = cases::CylinderCase::steady_3d1z;
    p.diameter = 4;
    p.max_velocity = 0.1;
    p.immersed.enabled = true;
    expect_invariant(cases::cylinder_setup(p, v), 30, "3D-1Z ib", rank, ranks);
  }
}

/// The oscillating cylinder in its periodic box, once where the box puts it and once moved by
/// half the box along y, the periodic slab axis, so that it straddles the box's ends: its
/// stencils wrap from the last plane to the first (on one rank, and from the last rank to the
/// first). The box is uniform, so the moved body feels the same force.
TEST_F(ImmersedBoundaryMpi, OscillatingCylinderAcrossThePeriodicSlabAxis) {
  const Variant v{"d2q9", "double", "soa", "trt", "ab"};
  if (test::compiled(v)) {
    cases::OscillatingCylinderParams p;
    p.diameter = 8;
    p.box_diameters = 4;
    p.max_velocity = 0.02;
    const SolverSetup centred = cases::oscillating_cylinder_setup(p, v);
    SolverSetup across = centred;
    const double half = 0.5 * centred.global.ny;
    for (auto& x : across.immersed_body.markers.position) x[1] = std::fmod(x[1] + half, double(centred.global.ny));
    const auto a = expect_invariant(centred, 40, "oscillating, centred", rank, ranks);
    const auto b = expect_invariant(across, 40, "oscillating, across the periodic ends", rank, ranks);
    if (rank == 0) {
      for (int d = 0; d < 2; ++d)
        EXPECT_NEAR(b[std::size_t(d)], a[std::size_t(d)], 1e-9 * std::fabs(a[0])) << "axis " << d;
    }
  }
}

}  // namespace
