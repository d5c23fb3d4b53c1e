// Halo plans of a stencil code, not LBM (issue 55): stencil_halo_plan fills, on every layout and
// process grid of the run's ranks, the halo voxels its reach names with every component of the
// neighbour's voxel and nothing else; a hand-written plan whose two sides list a message in
// different orders, or that one side does not expect, is refused on every rank, naming the transfer.
#include "mpi_test.hpp"

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/collective_error.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/stencil_halo_plan.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <array>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace karman;
using comm::CartesianDecomposition;
using comm::MpiHaloExchanger;

template <class Layout>
class StencilExchangeTest : public test::MpiTest {};
using Layouts = ::testing::Types<SoA, AoS, BasicDisaggregated<53>>;
TYPED_TEST_SUITE(StencilExchangeTest, Layouts);

/// Component q of the global voxel at local voxel v: positive where owned, negated in the halo.
double encoded(const CartesianPartition& p, index_t v, int q) {
  const std::array<int, 3> at = p.coordinates(v), origin = p.origin();
  index_t global = 0;
  bool owned = true;
  for (int a = 2; a >= 0; --a) {
    const int n = p.global().extent(a), local = at[std::size_t(a)] - p.halo(a);
    owned = owned && local >= 0 && local < p.owned(a);
    global = global * n + ((origin[std::size_t(a)] + at[std::size_t(a)]) % n + n) % n;
  }
  return (owned ? 1.0 : -1.0) * double(global * 8 + q + 1);
}

template <class Layout>
using FieldOf = Field<double, Layout, Kokkos::HostSpace>;

template <class Layout>
FieldOf<Layout> encoded_field(const CartesianPartition& p, int components) {
  FieldOf<Layout> f("f", p.groups(), components);
  for (index_t v = 0; v < p.local_size(); ++v)
    for (int q = 0; q < components; ++q) f(v, q) = encoded(p, v, q);
  return f;
}

/// The process grids of `ranks` ranks: slabs and blocks.
std::vector<std::array<int, 3>> grids(int ranks) {
  std::vector<std::array<int, 3>> out;
  for (const std::array<int, 3>& d :
       {std::array<int, 3>{1, 1, 1}, {1, 1, 2}, {2, 1, 1}, {2, 2, 1}, {1, 2, 2}, {2, 2, 2}})
    if (d[0] * d[1] * d[2] == ranks) out.push_back(d);
  return out;
}

/// One exchange of stencil_halo_plan; empty when the received halo voxels hold the neighbour's
/// values (every component) and every other voxel is unchanged.
template <class Layout>
std::string exchange_once(const CartesianDecomposition& dec, int components, StencilReach reach) {
  const CartesianPartition& p = dec.partition();
  const HaloPlan plan = stencil_halo_plan(p, components, reach);
  FieldOf<Layout> f = encoded_field<Layout>(p, components);
  std::vector<bool> received(std::size_t(p.local_size()), false);
  for (const HaloTransfer& r : plan.receives) {
    if (!dec.has_neighbour(r.neighbour)) continue;
    const VoxelRange voxels = transfer_voxels(r, p.groups());
    for (index_t v = voxels.begin; v < voxels.end; ++v) received[std::size_t(v)] = true;
  }
  MpiHaloExchanger<FieldOf<Layout>> exchanger(dec);
  exchanger.start(f, plan);
  exchanger.finish();
  std::ostringstream report;
  int wrong = 0;
  for (index_t v = 0; v < p.local_size(); ++v) {
    for (int q = 0; q < components; ++q) {
      const double e = encoded(p, v, q), want = received[std::size_t(v)] ? -e : e;
      if (f(v, q) == want) continue;
      if (wrong++ < 5) report << "(voxel " << v << ", q " << q << "): got " << f(v, q) << ", want " << want << "; ";
    }
  }
  if (wrong > 0) report << wrong << " wrong values";
  return report.str();
}

TYPED_TEST(StencilExchangeTest, HaloHoldsNeighbourValues) {
  for (const std::array<int, 3>& dims : grids(this->ranks)) {
    for (const std::array<bool, 3> periodic : {std::array<bool, 3>{true, true, true}, {false, true, false}}) {
      const CartesianDecomposition dec({6, 5, 7}, MPI_COMM_WORLD, dims, periodic);
      for (const StencilReach reach : {StencilReach::faces, StencilReach::faces_edges_corners})
        for (const int components : {1, 7})
          EXPECT_EQ(exchange_once<TypeParam>(dec, components, reach), "")
              << dims[0] << "x" << dims[1] << "x" << dims[2] << (periodic[0] ? " periodic" : " closed x, z") << ", "
              << components << " components, " << (reach == StencilReach::faces ? "faces" : "all neighbours");
    }
  }
}

/// The plan a user wrote by hand before stencil_halo_plan: one transfer per shared cell with
/// every component, received as one transfer over the halo group. Sizes agree, the order of
/// the values does not (cell-major on one side, component-major on the other).
HaloPlan cell_major_plan(const CartesianPartition& p, int components) {
  HaloPlan plan;
  for (const NeighbourStep& s : p.steps()) {
    if (s.axes() != 1) continue;
    for (const int g : p.shared_groups_towards(s)) plan.sends.push_back({g, {0, components}, s});
    plan.receives.push_back({p.halo_group(s), {0, components}, s});
  }
  return plan;
}

/// The message a refused plan throws with on this rank, or "" when it was accepted.
template <class Layout>
std::string refusal(const CartesianDecomposition& dec, const HaloPlan& plan, int components) {
  FieldOf<Layout> f = encoded_field<Layout>(dec.partition(), components);
  MpiHaloExchanger<FieldOf<Layout>> exchanger(dec);
  try {
    exchanger.start(f, plan);
  } catch (const comm::CollectiveError& e) {
    return e.what();
  }
  exchanger.finish();
  return "";
}

TYPED_TEST(StencilExchangeTest, CellMajorPlanIsRefused) {
  if (this->ranks < 2) GTEST_SKIP() << "a face of several cells needs a cut axis besides the slab axis";
  const std::array<int, 3> dims = this->ranks == 2 ? std::array<int, 3>{2, 1, 1} : std::array<int, 3>{2, 2, 1};
  const CartesianDecomposition dec({6, 5, 7}, MPI_COMM_WORLD, dims, {true, true, true});
  const std::string message = refusal<TypeParam>(dec, cell_major_plan(dec.partition(), 7), 7);
  EXPECT_NE(message.find("two sides disagree"), std::string::npos) << message;
  EXPECT_NE(message.find("receive 0 (halo -z, components [0, 7))"), std::string::npos) << message;
  // The same transfers one component at a time are what stencil_halo_plan's order needs.
  EXPECT_EQ(refusal<TypeParam>(dec, stencil_halo_plan(dec.partition(), 7, StencilReach::faces), 7), "");
}

TYPED_TEST(StencilExchangeTest, OneSidedPlanIsRefused) {
  const CartesianDecomposition dec({6, 5, 8}, MPI_COMM_WORLD, {1, 1, this->ranks}, {true, true, true});
  HaloPlan plan = stencil_halo_plan(dec.partition(), 2, StencilReach::faces);
  // Nobody expects what goes up: the receives from below are dropped.
  plan.receives.erase(plan.receives.begin());
  const std::string message = refusal<TypeParam>(dec, plan, 2);
  EXPECT_NE(message.find("receives nothing from -z, where rank "), std::string::npos) << message;
  EXPECT_NE(message.find("'s sends to +z have component 0 of voxel (0, 0, "), std::string::npos) << message;
}

}  // namespace
