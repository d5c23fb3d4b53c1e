// One boundary meaning on every grid (issue 55): the same stencil code, with stencil_halo_plan,
// MpiHaloExchanger and fill_closed_halos, computes on every process grid of the run's ranks,
// slabs and blocks, and on one rank (MPI_COMM_SELF), bitwise what the whole box computes with
// walls of the given value where an axis is closed and a wrap where it is periodic.
#include "../common/boundary_stencil.hpp"
#include "mpi_test.hpp"

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace {

using namespace karman;
using comm::CartesianDecomposition;
using comm::MpiHaloExchanger;

class BoundaryTest : public test::MpiTest {};

/// The process grids of `ranks` ranks on a box of `dimension`: slabs and blocks.
std::vector<std::array<int, 3>> grids(int ranks, int dimension) {
  std::vector<std::array<int, 3>> out;
  for (const std::array<int, 3>& d :
       {std::array<int, 3>{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {1, 2, 2}})
    if (d[0] * d[1] * d[2] == ranks && (dimension == 3 || d[2] == 1)) out.push_back(d);
  return out;
}

std::string describe(const std::array<int, 3>& dims, const std::array<bool, 3>& periodic, StencilReach reach) {
  std::string out = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) + ": ";
  for (int a = 0; a < 3; ++a)
    out += std::string(1, "xyz"[a]) + (periodic[std::size_t(a)] ? " periodic, " : " closed, ");
  return out + (reach == StencilReach::faces ? "faces" : "faces, edges and corners");
}

template <int Dim>
void expect_whole_box(const Extents& box, int ranks) {
  for (const std::array<bool, 3>& periodic :
       std::array<std::array<bool, 3>, 3>{{{false, false, false}, {true, true, true}, {false, true, false}}}) {
    for (const StencilReach reach : {StencilReach::faces, StencilReach::faces_edges_corners}) {
      const std::vector<double> whole = test::run_on_box<Dim>(box, periodic, reach, 3);
      for (const std::array<int, 3>& dims : grids(ranks, Dim)) {
        const CartesianDecomposition dec(box, MPI_COMM_WORLD, dims, periodic);
        MpiHaloExchanger<test::StencilField> exchanger(dec);
        EXPECT_EQ(test::compare(test::run_on_block<Dim>(dec.partition(), exchanger, reach, 3), whole), "")
            << Dim << "D on " << describe(dims, periodic, reach);
      }
      // The same code on one rank, its own neighbour along periodic axes.
      const CartesianDecomposition one(box, MPI_COMM_SELF, {1, 1, 1}, periodic);
      MpiHaloExchanger<test::StencilField> self(one);
      EXPECT_EQ(test::compare(test::run_on_block<Dim>(one.partition(), self, reach, 3), whole), "")
          << Dim << "D on one rank, " << describe({1, 1, 1}, periodic, reach);
    }
  }
}

// Fails before `periodic` decided every axis: the blocks' closed halos held what the field held
// (zero), and an uncut axis wrapped whatever `periodic` said.
TEST_F(BoundaryTest, SameStencilOnEveryGrid3D) { expect_whole_box<3>({6, 5, 7}, ranks); }
TEST_F(BoundaryTest, SameStencilOnEveryGrid2D) { expect_whole_box<2>({7, 6, 1}, ranks); }

}  // namespace
