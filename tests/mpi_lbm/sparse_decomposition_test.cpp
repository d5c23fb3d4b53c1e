// Decomposition invariance of the block-sparse solver (issue 13 item 4, docs/validation.md invariants):
// the ranks of MPI_COMM_WORLD divide the block planes along the slowest axis, exchange their
// shared blocks into each other's halo blocks, and give in every owned voxel the same bits of
// rho and u as one rank running the same setup, after odd and even step counts: AB and AA,
// memory and bitmask grouping, SoA and CSoA, the exchange overlapped with the interior blocks
// and not. The boxes hold 9 block planes along the slab axis, so 2, 3 and 4 ranks all get
// uneven slabs (5+4, 3+3+3, 3+2+2+2; a 2-plane slab has no interior group).
#include "mpi_lbm_support.hpp"

#include <karman/comm/ranks.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/lbm/cases/cavity.hpp>
#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

class SparseDecompositionInvariance : public test::MpiSolverTest {};

/// The owned voxels of `solver` as (global voxel index, rho, ux, uy, uz) records: every voxel of
/// its owned box, zeros where no block is stored.
std::vector<double> owned_records(FlowSolver& solver) {
  const MomentFields m = solver.moments();
  const auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  const OwnedBox box = solver.owned_box();
  std::vector<double> out;
  for (index_t k = 0; k < box.size(); ++k) {
    const auto v = std::size_t(k);
    out.insert(out.end(), {double(box.global_index(k)), rho(v), u(v, 0), u(v, 1), u(v, 2)});
  }
  return out;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Empty when `gathered` (every rank's records) holds each voxel of `expected` once with the
/// same bits and nothing else; otherwise the first difference.
std::string difference(const std::vector<double>& expected, const std::vector<double>& gathered, const Extents& box) {
  std::vector<int> seen(std::size_t(box.size()), 0);
  std::vector<const double*> where(std::size_t(box.size()), nullptr);
  for (std::size_t r = 0; r < gathered.size(); r += 5) {
    const auto k = std::size_t(gathered[r]);
    ++seen[k];
    where[k] = &gathered[r];
  }
  std::size_t compared = 0;
  for (std::size_t r = 0; r < expected.size(); r += 5) {
    const auto k = std::size_t(expected[r]);
    const std::string at = "voxel " + std::to_string(k);
    if (seen[k] != 1) return at + " is owned by " + std::to_string(seen[k]) + " ranks, expected 1";
    for (int c = 1; c < 5; ++c) {
      if (!same_bits(expected[r + std::size_t(c)], where[k][c])) {
        return at + " value " + std::to_string(c) + ": " + std::to_string(where[k][c]) + " on the ranks, " +
               std::to_string(expected[r + std::size_t(c)]) + " on one rank";
      }
    }
    ++compared;
  }
  if (compared * 5 != gathered.size()) {
    return "the ranks own " + std::to_string(gathered.size() / 5) + " voxels, one rank stores " +
           std::to_string(compared);
  }
  return "";
}

double max_speed(const std::vector<double>& records) {
  double s = 0;
  for (std::size_t r = 0; r < records.size(); r += 5) {
    for (int d = 2; d < 5; ++d) s = std::fmax(s, std::fabs(records[r + std::size_t(d)]));
  }
  return s;
}

/// Runs `setup` on the block planes of every rank and on one rank (rank 0, after the gather)
/// for `steps` and `steps + 1` steps, every grouping, layout and overlap, and compares.
void expect_invariant(SolverSetup setup, int steps, const std::string& what, int rank, int ranks) {
  const comm::Ranks all(MPI_COMM_WORLD);
  for (BlockGrouping grouping : {BlockGrouping::memory, BlockGrouping::bitmask}) {
    for (const char* layout : {"soa", "csoa"}) {
      for (bool overlap : {true, false}) {
        SolverSetup s = setup;
        s.variant.layout = layout;
        s.overlap = overlap;
        if (!is_sparse_compiled(s.variant.lattice.name(), s.variant.precision.name(), layout)) continue;
        SolverSetup single = s;
        single.communicator = comm::Ranks();
        s.rank = rank;
        s.ranks = ranks;
        s.communicator = all;
        auto decomposed = make_sparse_solver(s, grouping);
        auto reference = rank == 0 ? make_sparse_solver(single, grouping) : nullptr;
        const std::string name = what + " " + decomposed->description() + (overlap ? " overlap on" : " overlap off");
        EXPECT_EQ(decomposed->uses_mpi(), ranks > 1) << name;
        for (int n : {steps, steps + 1}) {
          decomposed->advance(n - int(decomposed->steps()));
          const std::vector<double> gathered = all.gather(owned_records(*decomposed));
          const std::string where =
              name + " after " + std::to_string(n) + " steps on " + std::to_string(ranks) + " ranks";
          if (ranks > 1) {
            EXPECT_GT(decomposed->comm_stats().messages_sent_per_step, 0.0) << where << ", rank " << rank;
          }
          if (rank != 0) continue;
          reference->advance(n - int(reference->steps()));
          const std::vector<double> expected = owned_records(*reference);
          EXPECT_GT(max_speed(expected), 1e-7) << where << ": the case must set the fluid moving";
          EXPECT_EQ(difference(expected, gathered, s.global), "") << where;
        }
      }
    }
  }
}

/// The first of double and float compiled for the block-sparse grid with `lattice`, or "".
std::string precision_for(const std::string& lattice) {
  for (const char* precision : {"double", "float"}) {
    if (is_sparse_compiled(lattice, precision, "soa") || is_sparse_compiled(lattice, precision, "csoa")) {
      return precision;
    }
  }
  return "";
}

/// A periodic random pack of 16 x 16 x 36 voxels (9 block planes of 4) driven by a body force.
SolverSetup sphere_pack(const std::string& lattice, const char* pattern) {
  const Extents box{16, 16, 36};
  geometry::RandomPackOptions options;
  options.porosity = 0.5;
  options.radius_min = 3;
  options.radius_max = 5;
  options.seed = 7;
  const auto pack = std::make_shared<geometry::SpherePack>(geometry::random_sphere_pack(box, options));
  SolverSetup s;
  s.variant = Variant{lattice, precision_for(lattice), "soa", "trt", pattern};
  s.global = box;
  s.periodic = {true, true, true};
  s.relaxation.omega = 1.2;
  s.relaxation.force[0] = 1e-5;
  s.relaxation.force[2] = 2e-5;
  s.geometry = [pack](int x, int y, int z) {
    return pack->image.is_solid(x, y, z) ? CellSpec{CellKind::solid, 0} : CellSpec{};
  };
  return s;
}

TEST_F(SparseDecompositionInvariance, PeriodicSpherePackD3Q19AndD3Q27) {
  for (const char* lattice : {"d3q19", "d3q27"}) {
    if (precision_for(lattice).empty()) continue;
    for (const char* pattern : {"ab", "aa"}) {
      expect_invariant(sphere_pack(lattice, pattern), 6, std::string("sphere pack ") + pattern, rank, ranks);
    }
  }
}

// Walls on every side: the end ranks have one neighbour, and blocks of the lid and the walls
// sit in shared groups.
TEST_F(SparseDecompositionInvariance, Cavity3D) {
  if (precision_for("d3q19").empty()) GTEST_SKIP() << "no block-sparse d3q19 compiled";
  cases::CavityParams p;
  p.dim = 3;
  p.n = 34;  // 36 voxels with the walls: 9 block planes
  p.reynolds = 10;
  for (const char* pattern : {"ab", "aa"}) {
    const SolverSetup s = cases::cavity_setup(p, Variant{"d3q19", precision_for("d3q19"), "soa", "bgk", pattern});
    expect_invariant(s, 5, std::string("cavity ") + pattern, rank, ranks);
  }
}

// 2D: blocks of 8 x 8, the ranks dividing the y planes of a pressure-driven channel (walls at
// y = 0 and the top, inlet and outlet along x).
TEST_F(SparseDecompositionInvariance, PressureChannel2D) {
  if (precision_for("d2q9").empty()) GTEST_SKIP() << "no block-sparse d2q9 compiled";
  cases::ChannelParams c;
  c.dim = 2;
  c.height = 70;  // 72 voxels with the walls: 9 block planes
  c.length = 30;
  c.drive = cases::ChannelDrive::pressure_drop;
  for (const char* pattern : {"ab", "aa"}) {
    SolverSetup s = cases::channel_setup(c, Variant{"d2q9", precision_for("d2q9"), "soa", "trt", pattern});
    expect_invariant(s, 7, std::string("pressure channel ") + pattern, rank, ranks);
  }
}

// More ranks than half the block planes: refused on every rank before anything is allocated.
TEST_F(SparseDecompositionInvariance, TooManyRanksRefused) {
  if (ranks < 2 || precision_for("d3q19").empty()) GTEST_SKIP() << "needs 2 ranks and a block-sparse d3q19";
  SolverSetup s = sphere_pack("d3q19", "ab");
  s.global.nz = 4 * (2 * ranks - 1);  // 2 * ranks - 1 block planes
  s.rank = rank;
  s.ranks = ranks;
  s.communicator = comm::Ranks(MPI_COMM_WORLD);
  try {
    make_sparse_solver(s);
    ADD_FAILURE() << "accepted " << ranks << " ranks on " << 2 * ranks - 1 << " block planes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("each rank needs at least 2"), std::string::npos) << e.what();
  }
}

}  // namespace
