// order_after (instance_order.hpp) orders two execution-space instances without a host fence:
// work alternated between two instances, each step reading what the other one wrote last,
// must come out as if it had run in one queue. On a GPU the instances are two streams and a
// missing order shows as a race: the first kernel of each pair spins long enough (about half a
// millisecond) for the second to overtake it. On a host backend the fallback fence is checked.
#include <karman/core/backend_traits.hpp>
#include <karman/core/instance_order.hpp>
#include <karman/core/kokkos_compat.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;

constexpr int n = 1 << 14, rounds = 20;

/// The alternating updates (see the file comment); x ends on the host. The spin loop's value goes
/// to `spun`, which nobody reads, so that the compiler keeps the loop. A free function: CUDA's
/// extended lambdas may not sit in a test body (a private member function).
Kokkos::View<std::uint32_t*, Kokkos::HostSpace> alternate_instances(const std::vector<Space>& spaces) {
  const Space in_order;
  const int spin = karman::BackendTraits<Space>::is_gpu ? 200000 : 1;
  Kokkos::View<std::uint32_t*, Space::memory_space> x("x", n), spun("spun", n);
  Kokkos::deep_copy(x, 1u);
  for (int r = 0; r < rounds; ++r) {
    const Space& writer = spaces[std::size_t(r % 2)];
    const Space& reader = spaces[std::size_t((r + 1) % 2)];
    // A slow increment on one instance, then a fast read-modify-write on the other.
    Kokkos::parallel_for(
        "karman::test::slow_increment", Kokkos::RangePolicy<Space>(writer, 0, n), KOKKOS_LAMBDA(const int i) {
          std::uint32_t h = x(i);
          for (int s = 0; s < spin; ++s) h = h * 1664525u + 1013904223u;
          spun(i) = h;
          x(i) = x(i) + 1u;
        });
    karman::order_after(reader, writer);
    Kokkos::parallel_for(
        "karman::test::fast_update", Kokkos::RangePolicy<Space>(reader, 0, n),
        KOKKOS_LAMBDA(const int i) { x(i) = x(i) ^ std::uint32_t(i); });
    karman::order_after(writer, reader);
  }
  karman::order_after(in_order, spaces[0]);
  karman::order_after(in_order, spaces[1]);
  karman::compat::fence(in_order, "karman::test::ordered");
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
}

/// How many of the values came out other than one queue would have made them.
int values_out_of_order(const Kokkos::View<std::uint32_t*, Kokkos::HostSpace>& host) {
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    std::uint32_t expected = 1;
    for (int r = 0; r < rounds; ++r) expected = (expected + 1u) ^ std::uint32_t(i);
    wrong += host(i) != expected;
  }
  return wrong;
}

// The overlapped step's pair: interior and shared-voxel instances.
TEST(InstanceOrder, AlternatingInstancesComputeAsOneQueue) {
  EXPECT_EQ(values_out_of_order(alternate_instances(karman::compat::make_concurrent_instances<Space>(2))), 0)
      << "values whose updates ran out of order";
}

// The halo exchanger's pair: the default instance and its own high-priority one.
TEST(InstanceOrder, PriorityInstanceOrdersAfterTheDefaultInstance) {
  const std::vector<Space> spaces{Space(), karman::compat::make_priority_instance<Space>()};
  EXPECT_EQ(values_out_of_order(alternate_instances(spaces)), 0) << "values whose updates ran out of order";
}

}  // namespace
