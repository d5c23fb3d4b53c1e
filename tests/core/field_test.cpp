// Field as a View-like type: host mirrors and deep copies, read-only conversion, unmanaged
// wrapping, half-precision storage, a compile-time component count, and what a kernel copies.
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/layouts.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using namespace karman;

using Space = Kokkos::DefaultExecutionSpace;

// A value no two (voxel, component) pairs share, exact in every value type tested.
KOKKOS_INLINE_FUNCTION double pattern(index_t v, int q) { return double(v * 8 + q); }

/// Writes pattern(v, q) on the device. A free function: CUDA lambdas may not live in
/// GoogleTest's private TestBody.
template <class FieldType>
void fill_pattern(const FieldType& f) {
  const int q_count = f.components();
  for_each(
      "fill_pattern", VoxelRange{0, f.voxels()}, Space(), KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < q_count; ++q) f(v, q) = typename FieldType::value_type(pattern(v, q));
      });
}

/// Reads a read-only field in a kernel: the sum of its values.
template <class T, class Layout>
double sum_in_kernel(const Field<const T, Layout>& f) {
  const int q_count = f.components();
  double sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>>(0, f.voxels()),
      KOKKOS_LAMBDA(index_t v, double& s) {
        for (int q = 0; q < q_count; ++q) s += double(f(v, q));
      },
      sum);
  return sum;
}

const SlabPartition part(Extents{5, 3, 7}, 1, 2);

template <class Layout>
class FieldTest : public ::testing::Test {};

using AllLayouts = ::testing::Types<AoS, SoA, CSoA<4>, Disaggregated>;
TYPED_TEST_SUITE(FieldTest, AllLayouts);

TYPED_TEST(FieldTest, MirrorRoundTripKeepsEveryValue) {
  Field<double, TypeParam> f("f", part.groups(), 5);
  fill_pattern(f);
  auto host = create_mirror(f);
  using kokkos_mirror_space = typename Kokkos::View<double*>::host_mirror_type::memory_space;
  static_assert(std::is_same_v<typename decltype(host)::memory_space, kokkos_mirror_space>,
                "the mirror lives where Kokkos mirrors the field's memory");
  EXPECT_NE(host.data(), f.data()) << "create_mirror always allocates";
  EXPECT_EQ(host.groups(), f.groups());
  EXPECT_EQ(host.components(), 5);
  deep_copy(host, f);
  for (index_t v = 0; v < f.voxels(); ++v)
    for (int q = 0; q < 5; ++q) ASSERT_EQ(host(v, q), pattern(v, q)) << TypeParam::name << " v=" << v << " q=" << q;

  // Back to the device: change on the host, copy, read on the device.
  for (index_t v = 0; v < f.voxels(); ++v) host(v, 2) = -1.0;
  deep_copy(f, host);
  double expected = 0;
  for (index_t v = 0; v < f.voxels(); ++v)
    for (int q = 0; q < 5; ++q) expected += q == 2 ? -1.0 : pattern(v, q);
  EXPECT_DOUBLE_EQ((sum_in_kernel<double, TypeParam>(f)), expected);
}

TYPED_TEST(FieldTest, MirrorViewIsTheFieldWhenHostAccessible) {
  Field<float, TypeParam, Kokkos::HostSpace> host_field("h", part.groups(), 3);
  auto same = create_mirror_view(host_field);
  EXPECT_EQ(same.data(), host_field.data());
  Field<float, TypeParam> f("f", part.groups(), 3);
  auto mirror = create_mirror_view(f);
  EXPECT_EQ(mirror.data() == f.data(),
            (std::is_same_v<typename Field<float, TypeParam>::memory_space, Kokkos::HostSpace>));
}

TYPED_TEST(FieldTest, DeepCopyOnAnInstanceAndFill) {
  Field<double, TypeParam> a("a", part.groups(), 4), b("b", part.groups(), 4);
  deep_copy(a, 2.5);
  deep_copy(Space(), b, a);
  Space().fence();
  EXPECT_DOUBLE_EQ((sum_in_kernel<double, TypeParam>(b)), 2.5 * 4 * double(part.local_size()));
}

TYPED_TEST(FieldTest, DeepCopyRefusesMismatchedFields) {
  Field<double, TypeParam> a("a", part.groups(), 4), q3("q3", part.groups(), 3);
  Field<double, TypeParam> other_groups("other", SlabPartition(Extents{5, 3, 7}, 0, 2).groups(), 4);
  EXPECT_THROW(deep_copy(a, q3), Error);
  try {
    deep_copy(a, other_groups);
    FAIL() << "fields on different group tables were copied";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("karman::deep_copy: destination 'a' has 75 voxels x 4 components"),
              std::string::npos)
        << e.what();
  }
}

TYPED_TEST(FieldTest, ReadOnlyConversionSharesStorage) {
  using Writable = Field<double, TypeParam>;
  static_assert(std::is_convertible_v<Writable, typename Writable::const_type>, "writable -> read-only");
  static_assert(!std::is_convertible_v<typename Writable::const_type, Writable>, "read-only stays read-only");
  static_assert(std::is_same_v<decltype(std::declval<typename Writable::const_type>()(0, 0)), const double&>,
                "a read-only field yields const references");
  Writable f("f", part.groups(), 2);
  deep_copy(f, 1.5);
  const typename Writable::const_type in = f;
  EXPECT_EQ(in.data(), f.data());
  EXPECT_EQ(in.groups(), f.groups());
  EXPECT_DOUBLE_EQ((sum_in_kernel<double, TypeParam>(f)), 1.5 * 2 * double(part.local_size()));
}

TYPED_TEST(FieldTest, WrapsExistingMemoryUnmanaged) {
  using F = Field<double, TypeParam>;
  const auto groups = part.groups();
  const std::size_t bytes = F::required_allocation_size(groups, 3);
  EXPECT_GE(bytes, sizeof(double) * std::size_t(groups.total()) * 3);
  Kokkos::View<double*, typename F::memory_space> storage("storage", bytes / sizeof(double));
  {
    F wrapped(storage.data(), groups, 3);
    EXPECT_EQ(wrapped.data(), storage.data());
    fill_pattern(wrapped);
  }
  // The field is gone; the memory and the values stay. Read them back through a new wrapper.
  EXPECT_EQ(storage.use_count(), 1) << "an unmanaged field must not hold a reference";
  auto host_storage = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), storage);
  Field<const double, TypeParam, Kokkos::HostSpace> view(host_storage.data(), groups, 3);
  for (index_t v = 0; v < groups.total(); ++v)
    for (int q = 0; q < 3; ++q) ASSERT_EQ(view(v, q), pattern(v, q));
}

TYPED_TEST(FieldTest, AddressOfIsTheElementsAddress) {
  // A host field: address_of only computes, and the element's address is where a prefetch
  // hint must point. Past the field it still computes (no group is looked up, nothing is read).
  Field<float, TypeParam, Kokkos::HostSpace> f("f", part.groups(), 3);
  for (index_t v = 0; v < f.voxels(); ++v)
    for (int q = 0; q < 3; ++q)
      ASSERT_EQ(f.address_of(f.span_of(v), v, q), reinterpret_cast<std::uintptr_t>(&f(v, q))) << v << " " << q;
  const index_t last = f.voxels() - 1;
  EXPECT_NE(f.address_of(f.span_of(last), last + 1000, 2), std::uintptr_t(0));
}

TEST(Field, HalfPrecisionStorage) {
  static_assert(is_field_value_v<Kokkos::Experimental::half_t>, "FP16 storage");
  static_assert(is_field_value_v<const float> && is_field_value_v<int>, "const and integer values");
  static_assert(!is_field_value_v<float*> && !is_field_value_v<std::string>, "no pointers or class types");
  using Half = Kokkos::Experimental::half_t;
  Field<Half, SoA> f("half", part.groups(), 2);
  EXPECT_EQ(f.view().extent(0) * sizeof(Half), (Field<Half, SoA>::required_allocation_size(part.groups(), 2)));
  fill_pattern(f);
  auto host = create_mirror_view(f);
  deep_copy(host, f);
  // Integers up to 2048 are exact in binary16.
  for (index_t v = 0; v < f.voxels(); ++v)
    for (int q = 0; q < 2; ++q) ASSERT_EQ(double(float(host(v, q))), pattern(v, q));
}

TEST(Field, CompileTimeComponents) {
  using Q19 = Field<float, CSoA<4>, Kokkos::HostSpace, 19>;
  static_assert(Q19::static_components == 19, "fixed Q");
  static_assert(Field<float, SoA>::static_components == dynamic_components, "runtime Q by default");
  Q19 f("q19", part.groups());
  EXPECT_EQ(f.components(), 19);
  EXPECT_EQ(f.view().extent(0), CSoA<4>::mapping(part.groups(), 19).size());
  // The fixed-Q field converts to a runtime-Q one (e.g. for a halo exchanger), sharing storage.
  const Field<float, CSoA<4>, Kokkos::HostSpace> dynamic = f;
  EXPECT_EQ(dynamic.components(), 19);
  EXPECT_EQ(dynamic.data(), f.data());
  try {
    Q19("bad", part.groups(), 9);
    FAIL() << "Q = 9 accepted for a Q = 19 field";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "karman::Field: cardinality Q = 9 differs from the compile-time Q = 19");
  }
}

// What a kernel copies when it captures a field: the storage handle, the mapping and one
// handle (a View's size) to the host-side group table; the table itself stays on the host.
template <class Layout>
constexpr bool kernel_copy_is_small() {
  using F = Field<float, Layout>;
  static_assert(sizeof(GroupTable) > sizeof(typename F::view_type), "else this check could not fail");
  return sizeof(F) <= 2 * sizeof(typename F::view_type) + sizeof(typename Layout::mapping);
}
static_assert(kernel_copy_is_small<AoS>() && kernel_copy_is_small<SoA>() && kernel_copy_is_small<CSoADefault>() &&
                  kernel_copy_is_small<Disaggregated>(),
              "a Field captured by a kernel must not carry host-only tables");

// Host fields past 2 MiB are allocated uninitialised, marked for huge pages, then zeroed: they
// must read as zero like any Kokkos allocation, and keep their label and size.
TEST(Field, LargeHostFieldsAreZeroInitialised) {
  for (const index_t voxels : {index_t(100), index_t(1) << 20}) {
    Field<float, SoA, Kokkos::HostSpace> f("large", GroupTable::single(voxels), 19);
    EXPECT_EQ(f.label(), "large");
    ASSERT_EQ(index_t(f.view().extent(0)), SoA::padded_stride(voxels) * 19);
    index_t nonzero = 0;
    for (std::size_t i = 0; i < f.view().extent(0); ++i) nonzero += f.view()(i) != 0.0f;
    EXPECT_EQ(nonzero, 0) << voxels << " voxels";
  }
  const auto v = allocate_zeroed<Kokkos::View<double*, Kokkos::HostSpace>>("raw", std::size_t(1) << 19);
  EXPECT_EQ(v.label(), "raw");
  EXPECT_EQ(v.extent(0), std::size_t(1) << 19);
}

TEST(Field, DefaultConstructedHasNoVoxels) {
  const Field<double, Disaggregated> f;
  EXPECT_EQ(f.voxels(), 0);
  EXPECT_EQ(f.data(), nullptr);
}

}  // namespace
