// Halo correctness and message counts of MpiHaloExchanger on a CartesianDecomposition: on every
// layout (Disaggregated over a block's 53 groups included), for D2Q9, D3Q19 and D3Q27, on every
// process grid of the run's ranks (1x1x2 slabs, 2x2x1, 2x2x2, 2x2 in 2D), with periodic and
// closed axes, every received population of every halo voxel holds the neighbour's value,
// nothing else changes, the AA plans return halo values to their owners, and each neighbour
// gets one message carrying only the populations that cross towards it.
#include "mpi_test.hpp"

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/core/cartesian/cartesian_halo_plan.hpp>
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>

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
using Velocities = std::vector<std::array<int, 3>>;

/// Velocity sets, as an exchange sees them (only the set matters): D3Q27 every step of
/// {-1, 0, 1}^3, D3Q19 those with at most two non-zero components, D2Q9 the planar ones.
Velocities velocities(int dimension, int max_nonzero) {
  Velocities out;
  for (int z = dimension == 3 ? -1 : 0; z <= (dimension == 3 ? 1 : 0); ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x)
        if (std::abs(x) + std::abs(y) + std::abs(z) <= max_nonzero) out.push_back({x, y, z});
  return out;
}

/// The layouts the test runs on; Disaggregated holds a block's 53 groups.
using Layouts = ::testing::Types<AoS, SoA, CSoA<4>, BasicDisaggregated<53>>;

template <class Layout>
class CartesianExchangeTest : public test::MpiTest {};
TYPED_TEST_SUITE(CartesianExchangeTest, Layouts);

/// Value of population q of global voxel g: positive in owned voxels, negated in halo voxels,
/// so every value says where it came from.
double encoded(index_t global_voxel, int q) { return double(global_voxel * 32 + q + 1); }

/// Global voxel (wrapped periodically) and sign of every local voxel, by local index.
struct Encoding {
  std::vector<index_t> global;
  std::vector<double> sign;
};
Encoding encoding_of(const CartesianPartition& p) {
  Encoding e{std::vector<index_t>(std::size_t(p.local_size())), std::vector<double>(std::size_t(p.local_size()))};
  const Extents &box = p.global(), &l = p.local();
  for (int z = 0; z < l.nz; ++z)
    for (int y = 0; y < l.ny; ++y)
      for (int x = 0; x < l.nx; ++x) {
        const int at[3] = {x, y, z};
        int g[3];
        bool owned = true;
        for (int a = 0; a < 3; ++a) {
          const int n = box.extent(a), local = at[a] - p.halo(a);
          owned = owned && local >= 0 && local < p.owned(a);
          g[a] = ((p.owned_begin(a) + local) % n + n) % n;
        }
        const auto v = std::size_t(p.index(x, y, z));
        e.global[v] = box.index(g[0], g[1], g[2]);
        e.sign[v] = owned ? 1.0 : -1.0;
      }
  return e;
}

/// The field's values on the host by (voxel, population).
template <class FieldType>
std::vector<double> read(const FieldType& f) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  std::vector<double> out(std::size_t(f.voxels() * f.components()));
  for (index_t v = 0; v < f.voxels(); ++v)
    for (int q = 0; q < f.components(); ++q) out[std::size_t(v * f.components() + q)] = host(f.mapping().offset(v, q));
  return out;
}

/// One exchange of `plan` on a fresh encoded field; empty when every value is as expected.
/// Checks the message counts against the plan's neighbours too.
template <class Layout>
std::string exchange_once(const CartesianDecomposition& dec, const Velocities& c, const HaloPlan& plan,
                          bool pack_always) {
  using FieldType = Field<double, Layout>;
  const CartesianPartition& p = dec.partition();
  const int Q = int(c.size());
  const Encoding e = encoding_of(p);
  FieldType field("f", p.groups(), Q);
  {
    const auto host = Kokkos::create_mirror_view(field.view());
    for (index_t v = 0; v < p.local_size(); ++v)
      for (int q = 0; q < Q; ++q)
        host(field.mapping().offset(v, q)) = e.sign[std::size_t(v)] * encoded(e.global[std::size_t(v)], q);
    Kokkos::deep_copy(field.view(), host);
  }
  std::vector<double> expected(std::size_t(p.local_size() * Q));
  for (index_t v = 0; v < p.local_size(); ++v)
    for (int q = 0; q < Q; ++q)
      expected[std::size_t(v * Q + q)] = e.sign[std::size_t(v)] * encoded(e.global[std::size_t(v)], q);
  // What arrives: the sender's value of the same global voxel, signed by the sender's group role.
  index_t messages = 0, values = 0;
  std::vector<NeighbourStep> counted;
  for (const HaloTransfer& r : plan.receives) {
    if (!dec.has_neighbour(r.neighbour)) continue;
    const bool into_halo = p.groups()[r.group].role == GroupRole::halo;
    const VoxelRange voxels = p.group(r.group);
    for (index_t v = voxels.begin; v < voxels.end; ++v)
      for (int q = r.components.begin; q < r.components.end; ++q)
        expected[std::size_t(v * Q + q)] = (into_halo ? 1.0 : -1.0) * encoded(e.global[std::size_t(v)], q);
    values += voxels.size() * r.components.size();
    bool seen = false;
    for (const NeighbourStep& s : counted) seen = seen || s == r.neighbour;
    if (!seen) counted.push_back(r.neighbour);
  }
  messages = index_t(counted.size());
  // Sends by kind of neighbour: one message to each, the populations crossing into it from the
  // shared cells facing it.
  std::array<index_t, neighbour_kinds> messages_by_kind{}, values_by_kind{};
  for (const NeighbourStep& s : counted) ++messages_by_kind[std::size_t(s.axes() - 1)];
  for (const HaloTransfer& t : plan.sends)
    if (dec.has_neighbour(t.neighbour))
      values_by_kind[std::size_t(t.neighbour.axes() - 1)] += p.group(t.group).size() * t.components.size();
  MpiHaloExchanger<FieldType> exchanger(dec, comm::GpuAwareMode::automatic, typename FieldType::execution_space(),
                                        pack_always);
  exchanger.start(field, plan);
  exchanger.finish();
  std::ostringstream report;
  if (exchanger.counters().messages_received != messages)
    report << exchanger.counters().messages_received << " messages received, want " << messages << "; ";
  if (exchanger.counters().values_received != values)
    report << exchanger.counters().values_received << " values received, want " << values << "; ";
  if (exchanger.counters().messages_sent != messages)
    report << exchanger.counters().messages_sent << " messages sent, want " << messages << "; ";
  if (exchanger.counters().messages_sent_by_kind != messages_by_kind ||
      exchanger.counters().values_sent_by_kind != values_by_kind)
    report << "sends by kind of neighbour differ; ";
  const std::vector<double> got = read(field);
  int wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (got[k] == expected[k]) continue;
    if (wrong < 5)
      report << "(voxel " << k / Q << ", q " << k % Q << "): got " << got[k] << ", want " << expected[k] << "; ";
    ++wrong;
  }
  if (wrong > 0) report << wrong << " wrong values";
  return report.str();
}

/// The process grids of `ranks` ranks the test runs: the slab grid and the blocks of the issue.
std::vector<std::array<int, 3>> grids(int ranks, int dimension) {
  std::vector<std::array<int, 3>> out;
  const std::array<int, 3> candidates3[] = {{1, 1, 1}, {1, 1, 2}, {2, 1, 1}, {1, 1, 3},
                                            {2, 2, 1}, {1, 2, 2}, {2, 2, 2}};
  const std::array<int, 3> candidates2[] = {{1, 1, 1}, {1, 2, 1}, {2, 1, 1}, {1, 3, 1}, {2, 2, 1}, {4, 1, 1}};
  if (dimension == 3) {
    for (const auto& d : candidates3)
      if (d[0] * d[1] * d[2] == ranks) out.push_back(d);
  } else {
    for (const auto& d : candidates2)
      if (d[0] * d[1] * d[2] == ranks) out.push_back(d);
  }
  return out;
}

template <class Layout>
void check(int dimension, int max_nonzero, int ranks, bool pack_always = false) {
  const Velocities c = velocities(dimension, max_nonzero);
  const Extents box = dimension == 3 ? Extents{6, 5, 7} : Extents{8, 7, 1};
  for (const std::array<int, 3>& dims : grids(ranks, dimension)) {
    for (const std::array<bool, 3> periodic : {std::array<bool, 3>{true, true, true}, {false, true, false}}) {
      const CartesianDecomposition dec(box, MPI_COMM_WORLD, dims, periodic);
      std::ostringstream where;
      where << "D" << dimension << "Q" << c.size() << " on " << dims[0] << "x" << dims[1] << "x" << dims[2]
            << (periodic[0] ? " periodic" : " closed x, z") << ": ";
      const HaloPlan ab = cartesian_halo_plan(dec.partition(), c),
                     aa_odd = cartesian_halo_plan(dec.partition(), c, true);
      EXPECT_EQ(exchange_once<Layout>(dec, c, ab, pack_always), "") << where.str() << "AB";
      EXPECT_EQ(exchange_once<Layout>(dec, c, aa_odd, pack_always), "") << where.str() << "AA odd";
      EXPECT_EQ(exchange_once<Layout>(dec, c, reversed(aa_odd), pack_always), "") << where.str() << "AA even";
    }
  }
}

TYPED_TEST(CartesianExchangeTest, D2Q9HaloHoldsNeighbourValues) { check<TypeParam>(2, 2, this->ranks); }
TYPED_TEST(CartesianExchangeTest, D3Q19HaloHoldsNeighbourValues) { check<TypeParam>(3, 2, this->ranks); }
TYPED_TEST(CartesianExchangeTest, D3Q27HaloHoldsNeighbourValues) { check<TypeParam>(3, 3, this->ranks); }
TYPED_TEST(CartesianExchangeTest, PackAlwaysGivesTheSameHalo) { check<TypeParam>(3, 3, this->ranks, true); }

/// A 2x2x2 grid, periodic: D3Q19 talks to 18 neighbours (no corner population), D3Q27 to 26.
TEST(CartesianDecomposition, NeighboursOfABlock) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 8) GTEST_SKIP() << "needs 8 ranks";
  const CartesianDecomposition dec({6, 5, 7}, MPI_COMM_WORLD, {2, 2, 2}, {true, true, true});
  EXPECT_EQ(dec.neighbours(), 26);
  EXPECT_EQ(crossing_neighbours(dec.partition(), velocities(3, 2)).size(), 18u);
  EXPECT_EQ(crossing_neighbours(dec.partition(), velocities(3, 3)).size(), 26u);
}

TEST(CartesianDecomposition, GridsFromTheCommandLine) {
  EXPECT_EQ(comm::parse_process_grid("2x2x1", 4, 3), (std::array<int, 3>{2, 2, 1}));
  EXPECT_EQ(comm::parse_process_grid("1x3", 3, 2), (std::array<int, 3>{1, 3, 1}));
  for (const char* bad : {"2x2", "2x2x2", "2xx1", "2x2x1x1", "0x4x1", "ax2x2", ""}) {
    try {
      comm::parse_process_grid(bad, 4, 3);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--ranks-per-axis " + std::string(bad)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("accepted: AxBxC"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(comm::default_process_grid(2, 3), (std::array<int, 3>{1, 1, 2}));
  EXPECT_EQ(comm::default_process_grid(8, 3), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(comm::default_process_grid(4, 2), (std::array<int, 3>{2, 2, 1}));
  EXPECT_EQ(comm::default_process_grid(6, 3), (std::array<int, 3>{1, 2, 3}));
}

}  // namespace
