// The periodic self-exchanger of one rank: each send block lands in the halo block it pairs
// with (keyed by neighbour step), exactly, for every layout and halo width; nothing else changes.
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/periodic_exchange.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using namespace karman;

constexpr int components = 5;
constexpr double untouched = -7.0;

// Components [0, 2) cross the lower slab boundary, [3, 5) the upper one, 2 stays (as the
// c_z < 0, c_z = 0 and c_z > 0 populations of a lattice do).
HaloPlan plan_for(const SlabPartition& p) {
  const NeighbourStep lo = p.lower(), hi = p.upper();
  return {{{p.shared_group(lo), {0, 2}, lo}, {p.shared_group(hi), {3, 5}, hi}},
          {{p.halo_group(hi), {0, 2}, hi}, {p.halo_group(lo), {3, 5}, lo}}};
}

KOKKOS_INLINE_FUNCTION double pattern(index_t v, int q) { return double(v * components + q); }

/// Owned voxels hold pattern(v, q), halo voxels `untouched`; then one exchange. Returns the
/// field on the host. A free function: CUDA lambdas may not live in GoogleTest's TestBody.
template <class Layout>
typename Field<double, Layout>::host_mirror_type exchange(const SlabPartition& part, const HaloPlan& p) {
  using F = Field<double, Layout>;
  F f("f", part.groups(), components);
  const VoxelRange owned = part.owned();
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(0, f.voxels()), KOKKOS_LAMBDA(index_t v) {
        const bool is_owned = v >= owned.begin && v < owned.end;
        for (int q = 0; q < components; ++q) f(v, q) = is_owned ? pattern(v, q) : untouched;
      });
  PeriodicSelfExchanger<F> exchanger;
  exchanger.start(f, p);
  exchanger.finish();
  auto host = create_mirror_view(f);
  deep_copy(host, f);
  return host;
}

template <class Layout>
class PeriodicExchangeTest : public ::testing::Test {};

using AllLayouts = ::testing::Types<AoS, SoA, CSoA<4>, Disaggregated>;
TYPED_TEST_SUITE(PeriodicExchangeTest, AllLayouts);

TYPED_TEST(PeriodicExchangeTest, HalosReceiveTheOppositeSharedPlane) {
  for (const int width : {1, 2}) {
    for (const Extents box : {Extents{4, 3, 6}, Extents{5, 4, 1}}) {
      const SlabPartition part(box, 0, 1, width);
      const auto host = exchange<TypeParam>(part, plan_for(part));
      const index_t plane = part.plane_size();
      const VoxelRange lo = part.group(part.halo_group(part.lower())), hi = part.group(part.halo_group(part.upper()));
      const index_t wrap = part.owned().size();  // an owned voxel's periodic image is this far away
      for (index_t v = 0; v < host.voxels(); ++v) {
        for (int q = 0; q < components; ++q) {
          double expected = pattern(v, q);
          if (v >= lo.begin && v < lo.end) expected = q >= 3 ? pattern(v + wrap, q) : untouched;
          if (v >= hi.begin && v < hi.end) expected = q < 2 ? pattern(v - wrap, q) : untouched;
          ASSERT_EQ(host(v, q), expected)
              << TypeParam::name << " width " << width << " v=" << v << " q=" << q << " plane " << v / plane;
        }
      }
    }
  }
}

// A local copy is no message between ranks: the HaloExchanger counters stay at zero, so a
// run summary never reports traffic that did not happen.
TEST(PeriodicSelfExchanger, ReportsNoTrafficBetweenRanks) {
  const SlabPartition part(Extents{4, 3, 6});
  using F = Field<double, SoA>;
  F f("f", part.groups(), components);
  PeriodicSelfExchanger<F> exchanger;
  const HaloExchanger<F>& any = exchanger;
  for (int step = 0; step < 3; ++step) {
    exchanger.start(f, plan_for(part));
    exchanger.finish();
  }
  EXPECT_FALSE(any.between_ranks());
  EXPECT_FALSE(any.gpu_aware());
  const RankCommStats stats = any.stats();
  EXPECT_EQ(stats.exchanges, 0);
  EXPECT_EQ(stats.messages_sent_per_step, 0.0);
  EXPECT_EQ(stats.values_received_per_step, 0.0);
}

TEST(PeriodicSelfExchanger, RefusesASendWithoutReceive) {
  const SlabPartition part(Extents{4, 3, 6});
  const NeighbourStep hi = part.upper();
  const HaloPlan unpaired = {{{part.shared_group(hi), {3, 5}, hi}}, {{part.halo_group(hi), {0, 2}, hi}}};
  EXPECT_THROW(exchange<Disaggregated>(part, unpaired), std::logic_error);
}

}  // namespace
