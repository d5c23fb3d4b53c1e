// A stencil computed through each layout, launched group by group as an overlapped step
// would be, gives bitwise the same result as through a plain array.
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/layouts.hpp>

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using namespace karman;

constexpr int components = 3;

/// One Jacobi sweep of a 7-point average over owned voxels, x and y periodic, z reading the halo.
template <class Src, class Dst>
struct Smooth {
  Src in;
  Dst out;
  Extents local;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const int x = int(v % local.nx), y = int(v / local.nx % local.ny), z = int(v / (index_t(local.nx) * local.ny));
    const int xm = (x + local.nx - 1) % local.nx, xp = (x + 1) % local.nx;
    const int ym = (y + local.ny - 1) % local.ny, yp = (y + 1) % local.ny;
    for (int q = 0; q < components; ++q) {
      out(v, q) = (in(local.index(xm, y, z), q) + in(local.index(xp, y, z), q) + in(local.index(x, ym, z), q) +
                   in(local.index(x, yp, z), q) + in(local.index(x, y, z - 1), q) + in(local.index(x, y, z + 1), q) +
                   2.0 * in(v, q)) /
                  8.0;
    }
  }
};

/// Plain array view with the same call signature as a Field.
struct PlainArray {
  Kokkos::View<double**, Kokkos::LayoutRight> data;
  KOKKOS_INLINE_FUNCTION double& operator()(index_t v, int q) const { return data(v, q); }
};

using HostMatrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// Runs the stencil through a Field<Layout> (group by group) and through a plain array (one
/// launch); returns both results on the host. A free function: CUDA lambdas may not live in
/// GoogleTest's private TestBody.
template <class Layout>
std::pair<HostMatrix, HostMatrix> run_stencil(const SlabPartition& part) {
  const auto groups = part.groups();
  const index_t n = groups.total();
  Field<double, Layout> in("in", groups, components), out("out", groups, components);
  PlainArray ref_in{Kokkos::View<double**, Kokkos::LayoutRight>("ref_in", n, components)};
  PlainArray ref_out{Kokkos::View<double**, Kokkos::LayoutRight>("ref_out", n, components)};
  Kokkos::DefaultExecutionSpace space;
  for_each(
      "init", VoxelRange{0, n}, space, KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < components; ++q) {
          const double value = double((v * 7 + q * 13) % 17) + 0.25 * q;
          in(v, q) = value;
          ref_in(v, q) = value;
        }
      });
  Smooth<Field<double, Layout>, Field<double, Layout>> step{in, out, part.local()};
  for (int g : {part.interior_group(), part.shared_group(part.lower()), part.shared_group(part.upper())})
    for_each("smooth", part, g, space, step);
  for_each("smooth_ref", part.owned(), space, Smooth<PlainArray, PlainArray>{ref_in, ref_out, part.local()});
  Kokkos::View<double**, Kokkos::LayoutRight> got("got", n, components);
  for_each(
      "gather", VoxelRange{0, n}, space, KOKKOS_LAMBDA(index_t v) {
        for (int q = 0; q < components; ++q) got(v, q) = out(v, q);
      });
  return {Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got),
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref_out.data)};
}

template <class Layout>
class StencilTest : public ::testing::Test {};

using AllLayouts = ::testing::Types<AoS, SoA, CSoA<4>, CSoADefault, Disaggregated>;
TYPED_TEST_SUITE(StencilTest, AllLayouts);

TYPED_TEST(StencilTest, MatchesPlainArrayBitwise) {
  const SlabPartition part(Extents{7, 5, 9}, 0, 1);
  const auto [got, ref] = run_stencil<TypeParam>(part);
  const auto owned = part.owned();
  for (index_t v = owned.begin; v < owned.end; ++v) {
    for (int q = 0; q < components; ++q) {
      ASSERT_GT(ref(v, q), 0.0) << "reference not written at v=" << v;
      ASSERT_EQ(got(v, q), ref(v, q)) << TypeParam::name << " v=" << v << " q=" << q;
    }
  }
}

}  // namespace
