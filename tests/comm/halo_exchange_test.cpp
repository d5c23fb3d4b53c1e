// Halo correctness of MpiHaloExchanger (Meneghin & Mahmoud §VI-A): on every layout, for
// D2Q9, D3Q19 and D3Q27, wall and periodic ends, with uneven slabs, every received component of
// every halo voxel holds exactly the neighbour's value, nothing else changes, and the AA plans
// return halo values to their owners without touching the components they leave alone.
#include "halo_test_support.hpp"
#include "mpi_test.hpp"

#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/slab_decomposition.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace karman;
using comm::MpiHaloExchanger;
using comm::SlabDecomposition;
using comm::SlabEnds;

template <class Layout>
class HaloExchangeTest : public test::MpiTest {};
TYPED_TEST_SUITE(HaloExchangeTest, test::HaloLayouts);

/// One exchange of a plan of `make_plan` on a fresh encoded field; empty when every value is as expected.
template <class Layout, class Lattice>
std::string exchange_once(SlabEnds ends, test::PlanMaker make_plan, bool pack_always = false) {
  using FieldType = test::TestField<Layout>;
  const SlabDecomposition dec(test::test_box<Lattice>(), MPI_COMM_WORLD, ends);
  const HaloPlan plan = make_plan(dec.partition());
  FieldType field = test::make_encoded_field<FieldType>(dec, Lattice::Q, "f");
  MpiHaloExchanger<FieldType> exchanger(dec, comm::GpuAwareMode::automatic, typename FieldType::execution_space(),
                                        pack_always);
  exchanger.start(field, plan);
  exchanger.finish();
  const bool widened = !pack_always && comm::exchange_method_v<Layout> == comm::ExchangeMethod::whole_voxels;
  return test::compare(field, test::expected_after(dec, Lattice::Q, plan, widened));
}

/// Every plan and both end conditions for one lattice.
template <class Layout, class Lattice>
void check_lattice() {
  for (SlabEnds ends : {SlabEnds::wall, SlabEnds::periodic}) {
    const std::string where = std::string(Lattice::name) + ", " + std::string(comm::name(ends)) + " ends: ";
    EXPECT_EQ((exchange_once<Layout, Lattice>(ends, test::ab_plan<Lattice>)), "") << where << "AB";
    EXPECT_EQ((exchange_once<Layout, Lattice>(ends, test::aa_odd_plan<Lattice>)), "") << where << "AA odd";
    EXPECT_EQ((exchange_once<Layout, Lattice>(ends, test::aa_even_plan<Lattice>)), "") << where << "AA even";
  }
}

TYPED_TEST(HaloExchangeTest, D2Q9HaloHoldsNeighbourValues) { check_lattice<TypeParam, test::D2Q9>(); }

/// --halo-pack (the classical "SoA + pack" of Meneghin & Mahmoud Fig. 6): the same values arrive, in one
/// message per neighbour carrying only the crossing populations, whatever the layout.
template <class Layout>
void check_pack_always() {
  using L = test::D3Q19;
  for (SlabEnds ends : {SlabEnds::wall, SlabEnds::periodic}) {
    EXPECT_EQ((exchange_once<Layout, L>(ends, test::ab_plan<L>, true)), "") << "AB";
    EXPECT_EQ((exchange_once<Layout, L>(ends, test::aa_odd_plan<L>, true)), "") << "AA odd";
    EXPECT_EQ((exchange_once<Layout, L>(ends, test::aa_even_plan<L>, true)), "") << "AA even";
  }
  using FieldType = test::TestField<Layout>;
  const SlabDecomposition dec(test::test_box<L>(), MPI_COMM_WORLD, SlabEnds::wall);
  FieldType field = test::make_encoded_field<FieldType>(dec, L::Q, "f");
  MpiHaloExchanger<FieldType> exchanger(dec, comm::GpuAwareMode::automatic, typename FieldType::execution_space(),
                                        true);
  EXPECT_EQ(exchanger.effective_method(), comm::ExchangeMethod::packed);
  exchanger.start(field, test::ab_plan<L>(dec.partition()));
  exchanger.finish();
  EXPECT_EQ(exchanger.counters().messages_sent, index_t(dec.neighbours()));
  EXPECT_EQ(exchanger.counters().values_sent, index_t(dec.neighbours()) * L::crossing * dec.partition().plane_size());
}

TYPED_TEST(HaloExchangeTest, PackAlwaysSendsOneMessagePerNeighbour) { check_pack_always<TypeParam>(); }
TYPED_TEST(HaloExchangeTest, D3Q19HaloHoldsNeighbourValues) { check_lattice<TypeParam, test::D3Q19>(); }
TYPED_TEST(HaloExchangeTest, D3Q27HaloHoldsNeighbourValues) { check_lattice<TypeParam, test::D3Q27>(); }

/// AB swaps lattices and AA alternates plans, all on one exchanger: each exchange must use the
/// messages of its own plan and the memory of its own field.
template <class Layout, class Lattice>
void check_alternation() {
  using FieldType = test::TestField<Layout>;
  const SlabDecomposition dec(test::test_box<Lattice>(), MPI_COMM_WORLD, SlabEnds::periodic);
  const bool widened = comm::exchange_method_v<Layout> == comm::ExchangeMethod::whole_voxels;
  MpiHaloExchanger<FieldType> exchanger(dec);
  for (int round = 0; round < 2; ++round) {
    for (const HaloPlan& plan : {test::ab_plan<Lattice>(dec.partition()), test::aa_odd_plan<Lattice>(dec.partition()),
                                 test::aa_even_plan<Lattice>(dec.partition())}) {
      for (const char* label : {"f_a", "f_b"}) {
        FieldType field = test::make_encoded_field<FieldType>(dec, Lattice::Q, label);
        exchanger.start(field, plan);
        exchanger.finish();
        EXPECT_EQ(test::compare(field, test::expected_after(dec, Lattice::Q, plan, widened)), "")
            << Lattice::name << " round " << round << " field " << label;
      }
    }
  }
  EXPECT_EQ(exchanger.counters().exchanges, 12);
}

TYPED_TEST(HaloExchangeTest, OneExchangerServesAlternatingPlansAndFields) {
  check_alternation<TypeParam, test::D3Q19>();
}

/// A field whose two directions move the same components (a scalar, or any non-LBM field):
/// with two periodic ranks both messages go to the same rank, and only the direction of
/// travel in the tag keeps them apart. The receives are listed in the opposite order to the
/// sends, so that MPI's in-order matching cannot pair them by chance.
TYPED_TEST(HaloExchangeTest, SameComponentsBothWaysPairByDirection) {
  using FieldType = test::TestField<TypeParam>;
  for (SlabEnds ends : {SlabEnds::wall, SlabEnds::periodic}) {
    for (int q_count : {1, 3}) {
      const ComponentRange all{0, q_count};
      const SlabDecomposition dec(test::test_box<test::D3Q19>(), MPI_COMM_WORLD, ends);
      const SlabPartition& p = dec.partition();
      const NeighbourStep lo = p.lower(), hi = p.upper();
      const HaloPlan plan{{{p.shared_group(hi), all, hi}, {p.shared_group(lo), all, lo}},
                          {{p.halo_group(hi), all, hi}, {p.halo_group(lo), all, lo}}};
      FieldType field = test::make_encoded_field<FieldType>(dec, q_count, "scalar");
      MpiHaloExchanger<FieldType> exchanger(dec);
      exchanger.start(field, plan);
      exchanger.finish();
      EXPECT_EQ(test::compare(field, test::expected_after(dec, q_count, plan, false)), "")
          << comm::name(ends) << " ends, " << q_count << " component(s)";
    }
  }
}

/// A second start() before finish(), or a finish() with nothing started, is a caller's bug and
/// refused; the exchange in flight still completes.
TYPED_TEST(HaloExchangeTest, StartTwiceWithoutFinishIsRefused) {
  using FieldType = test::TestField<TypeParam>;
  const SlabDecomposition dec(test::test_box<test::D3Q19>(), MPI_COMM_WORLD, SlabEnds::periodic);
  FieldType field = test::make_encoded_field<FieldType>(dec, test::D3Q19::Q, "f");
  MpiHaloExchanger<FieldType> exchanger(dec);
  exchanger.start(field, test::ab_plan<test::D3Q19>(dec.partition()));
  EXPECT_THROW(exchanger.start(field, test::ab_plan<test::D3Q19>(dec.partition())), std::logic_error);
  exchanger.finish();
  EXPECT_THROW(exchanger.finish(), std::logic_error);
  EXPECT_EQ(test::compare(
                field, test::expected_after(dec, test::D3Q19::Q, test::ab_plan<test::D3Q19>(dec.partition()),
                                            comm::exchange_method_v<TypeParam> == comm::ExchangeMethod::whole_voxels)),
            "");
}

}  // namespace
