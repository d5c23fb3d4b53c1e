// Messages and values each rank sends and receives per exchange equal Meneghin & Mahmoud Table III, for
// D2Q9, D3Q19 and D3Q27 and every layout, on end ranks (one neighbour) and middle ranks (two):
// α counts the sends of a rank with two neighbours (one per neighbour for AoS and
// Disaggregated), β the values in them, s the voxels of one plane.
#include "halo_test_support.hpp"
#include "mpi_test.hpp"

#include <karman/comm/comm_stats.hpp>
#include <karman/comm/message_plan.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/slab_decomposition.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <string>
#include <type_traits>

namespace {

using namespace karman;
using comm::MpiHaloExchanger;
using comm::SlabDecomposition;
using comm::SlabEnds;

/// One row of Table III for a layout: α and β / s of a rank with two neighbours.
struct TableRow {
  int alpha;
  int beta_per_plane;
};

/// Table III, with CSoA (packed: one message of the crossing populations) beside the paper's three.
template <class Layout, class Lattice>
TableRow table_iii() {
  if constexpr (std::is_same_v<Layout, AoS>) {
    return {2, 2 * Lattice::Q};  // 18s, 38s, 54s: whole voxels
  } else if constexpr (std::is_same_v<Layout, SoA>) {
    return {2 * Lattice::crossing, 2 * Lattice::crossing};  // 6, 10, 18 messages of s values
  } else {
    return {2, 2 * Lattice::crossing};  // Disaggregated and packed CSoA: one message of 6s, 10s, 18s
  }
}

template <class Layout>
class MessageCountTest : public test::MpiTest {};
TYPED_TEST_SUITE(MessageCountTest, test::HaloLayouts);

/// Counts of one exchange of a plan of `make_plan` against Table III, scaled to this rank's neighbours.
template <class Layout, class Lattice>
void check_counts(SlabEnds ends, test::PlanMaker make_plan, const char* plan_name) {
  using FieldType = test::TestField<Layout>;
  const SlabDecomposition dec(test::test_box<Lattice>(), MPI_COMM_WORLD, ends);
  const HaloPlan plan = make_plan(dec.partition());
  FieldType field = test::make_encoded_field<FieldType>(dec, Lattice::Q, "f");
  MpiHaloExchanger<FieldType> exchanger(dec);
  exchanger.start(field, plan);
  exchanger.finish();
  const TableRow row = table_iii<Layout, Lattice>();
  const index_t s = dec.partition().plane_size();
  const int k = dec.neighbours();
  const comm::ExchangeCounters& c = exchanger.counters();
  const std::string where = std::string(Lattice::name) + " " + Layout::name + " " + plan_name + ", " +
                            std::string(comm::name(ends)) + " ends, rank " + std::to_string(dec.rank()) + " with " +
                            std::to_string(k) + " neighbour(s)";
  // α and β are for two neighbours; an end rank between walls has one, so half of each.
  EXPECT_EQ(c.messages_sent, row.alpha * k / 2) << where;
  EXPECT_EQ(c.values_sent, row.beta_per_plane * s * k / 2) << where;
  EXPECT_EQ(c.messages_received, row.alpha * k / 2) << where;
  EXPECT_EQ(c.values_received, row.beta_per_plane * s * k / 2) << where;
  EXPECT_EQ(c.exchanges, 1) << where;
  EXPECT_EQ(exchanger.neighbours(), k) << where;
  // The message plan alone, built apart from any exchange, lists the same messages.
  std::array<int, NeighbourStep::count> peers{};
  for (int i = 0; i < NeighbourStep::count; ++i) peers[std::size_t(i)] = dec.neighbour(NeighbourStep::from_index(i));
  const comm::MessagePlan<FieldType> messages(field, plan, peers, MpiHaloExchanger<FieldType>::method);
  EXPECT_EQ(index_t(messages.sends().size()), row.alpha * k / 2) << where;
  EXPECT_EQ(messages.values_sent(), row.beta_per_plane * s * k / 2) << where;
  EXPECT_EQ(index_t(messages.receives().size()), row.alpha * k / 2) << where;
  EXPECT_EQ(messages.values_received(), row.beta_per_plane * s * k / 2) << where;
  EXPECT_TRUE(messages.serves(field, plan)) << where;
  const HaloPlan other = make_plan == test::ab_plan<Lattice> ? test::aa_odd_plan<Lattice>(dec.partition())
                                                             : test::ab_plan<Lattice>(dec.partition());
  if (k > 0) {
    EXPECT_FALSE(messages.serves(field, other)) << where;
  }
}

template <class Layout, class Lattice>
void check_lattice() {
  for (SlabEnds ends : {SlabEnds::wall, SlabEnds::periodic}) {
    check_counts<Layout, Lattice>(ends, test::ab_plan<Lattice>, "AB");
    check_counts<Layout, Lattice>(ends, test::aa_odd_plan<Lattice>, "AA odd");
    check_counts<Layout, Lattice>(ends, test::aa_even_plan<Lattice>, "AA even");
  }
}

TYPED_TEST(MessageCountTest, D2Q9MatchesTableIII) { check_lattice<TypeParam, test::D2Q9>(); }
TYPED_TEST(MessageCountTest, D3Q19MatchesTableIII) { check_lattice<TypeParam, test::D3Q19>(); }
TYPED_TEST(MessageCountTest, D3Q27MatchesTableIII) { check_lattice<TypeParam, test::D3Q27>(); }

/// The literal numbers of Table III, so a change in the lattice descriptors cannot move both the
/// implementation and the expectation together.
TEST(TableIII, LiteralValues) {
  EXPECT_EQ((table_iii<AoS, test::D2Q9>().beta_per_plane), 18);
  EXPECT_EQ((table_iii<AoS, test::D3Q19>().beta_per_plane), 38);
  EXPECT_EQ((table_iii<AoS, test::D3Q27>().beta_per_plane), 54);
  EXPECT_EQ((table_iii<SoA, test::D2Q9>().alpha), 6);
  EXPECT_EQ((table_iii<SoA, test::D3Q19>().alpha), 10);
  EXPECT_EQ((table_iii<SoA, test::D3Q27>().alpha), 18);
  EXPECT_EQ((table_iii<Disaggregated, test::D2Q9>().beta_per_plane), 6);
  EXPECT_EQ((table_iii<Disaggregated, test::D3Q19>().beta_per_plane), 10);
  EXPECT_EQ((table_iii<Disaggregated, test::D3Q27>().beta_per_plane), 18);
  EXPECT_EQ((table_iii<Disaggregated, test::D3Q27>().alpha), 2);
}

/// The run summary: per-step figures over several exchanges, gathered in rank order on rank 0.
TYPED_TEST(MessageCountTest, SummaryGathersEveryRankOnRankZero) {
  using FieldType = test::TestField<TypeParam>;
  using Lattice = test::D3Q19;
  const SlabDecomposition dec(test::test_box<Lattice>(), MPI_COMM_WORLD, SlabEnds::wall);
  FieldType field = test::make_encoded_field<FieldType>(dec, Lattice::Q, "f");
  MpiHaloExchanger<FieldType> exchanger(dec);
  const int steps = 3;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    exchanger.start(field, test::ab_plan<Lattice>(dec.partition()));
    exchanger.finish();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Solvers read the counters through the HaloExchanger interface, never the concrete type.
  HaloExchanger<FieldType>& any = exchanger;
  EXPECT_TRUE(any.between_ranks());
  const comm::RankCommStats mine = any.stats();
  EXPECT_EQ(mine.exchanges, steps);
  // The exchanger times its own start and finish calls: some time, never more than the loop's.
  EXPECT_GT(mine.exchange_seconds, 0.0);
  EXPECT_LE(mine.exchange_seconds, wall);
  const comm::CommStats all =
      comm::gather_comm_stats(mine, MPI_COMM_WORLD, TypeParam::name, false, exchanger.gpu_aware());
  EXPECT_EQ(all.ranks, this->ranks);
  any.reset_counters();
  EXPECT_EQ(exchanger.counters().exchanges, 0);
  EXPECT_EQ(all.layout, TypeParam::name);
  if (this->rank != 0) {
    EXPECT_TRUE(all.per_rank.empty());
    return;
  }
  ASSERT_EQ(int(all.per_rank.size()), this->ranks);
  const TableRow row = table_iii<TypeParam, Lattice>();
  for (int r = 0; r < this->ranks; ++r) {
    const comm::RankCommStats& line = all.per_rank[std::size_t(r)];
    const int k = this->ranks == 1 ? 0 : (r == 0 || r == this->ranks - 1 ? 1 : 2);
    EXPECT_EQ(line.rank, r);
    EXPECT_EQ(line.neighbours, k);
    EXPECT_EQ(line.exchanges, steps);
    EXPECT_DOUBLE_EQ(line.messages_sent_per_step, row.alpha * k / 2);
    EXPECT_DOUBLE_EQ(line.values_sent_per_step, double(row.beta_per_plane * dec.partition().plane_size() * k / 2));
  }
}

TEST(ExchangeCounters, HiddenFractionIsOverlapShareOfFlightTime) {
  comm::ExchangeCounters c;
  EXPECT_EQ(c.hidden_fraction(), 0.0);
  c.overlap_seconds = 3.0;
  c.wait_seconds = 1.0;
  EXPECT_DOUBLE_EQ(c.hidden_fraction(), 0.75);
  c.start_seconds = 0.5;
  c.finish_seconds = 1.25;
  EXPECT_DOUBLE_EQ(c.exchange_seconds(), 1.75);
}

}  // namespace
