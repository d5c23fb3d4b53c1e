// The CPU launch by x-rows (for_each_row.hpp) visits every voxel of a range (or of a mask in
// it) exactly once, takes the row path for the voxels strictly inside a row on host backends
// only, and gives them the neighbours Neighbours gives; ranges that are not whole rows, and
// functors that do not run by rows, go per voxel. A rerunnable functor's voxels are visited
// once or twice (the overlapping last chunk of a run), never outside the range or the mask;
// its runs shorter than a chunk go per voxel.
// A functor with prefetch hints gets one ahead of every chunk the row path runs, on CPUs only.
#include <karman/core/backend_traits.hpp>
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/for_each_row.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace karman;
using Space = Kokkos::DefaultExecutionSpace;

constexpr int general_path = 1;
constexpr int row_path = 2;

/// Counts visits per voxel, records the path that visited, and counts neighbours that differ
/// from Neighbours' answer.
template <int Dim, bool ByRows, bool Rerunnable = false>
struct RecordVisits {
  static constexpr bool by_rows = ByRows;
  static constexpr bool rerunnable = Rerunnable;
  using Row = RowOffsets<Dim>;
  Extents local;
  Kokkos::View<int*> visits, path;
  Kokkos::View<int> wrong_neighbours;

  int row_length() const { return local.nx; }
  Row row(index_t first) const { return Row(first, local); }

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const { visit(v, general_path, Neighbours<Dim>(v, local)); }
  KOKKOS_INLINE_FUNCTION void operator()(index_t v, const Row& r) const {
    visit(v, row_path, InRowNeighbours<Dim>(v, r));
  }

  template <class N>
  KOKKOS_INLINE_FUNCTION void visit(index_t v, int which, const N& n) const {
    Kokkos::atomic_add(&visits(v), 1);
    path(v) = which;
    const Neighbours<Dim> expected(v, local);
    for (int cz = Dim == 3 ? -1 : 0; cz <= (Dim == 3 ? 1 : 0); ++cz)
      for (int cy = -1; cy <= 1; ++cy)
        for (int cx = -1; cx <= 1; ++cx)
          if (n.at(cx, cy, cz) != expected.at(cx, cy, cz)) Kokkos::atomic_add(&wrong_neighbours(), 1);
  }
};

struct Visited {
  std::vector<int> visits, path;
  int wrong_neighbours = 0;
};

/// Runs for_each_row over `range` (of the mask `members` when given) of `part`'s local box.
template <int Dim, bool ByRows = true, bool Rerunnable = false>
Visited run(const SlabPartition& part, const VoxelRange& range, const std::vector<bool>* members = nullptr) {
  const Extents local = part.local();
  RecordVisits<Dim, ByRows, Rerunnable> f{local, Kokkos::View<int*>("visits", local.size()),
                                          Kokkos::View<int*>("path", local.size()), Kokkos::View<int>("wrong")};
  if (members) {
    for_each_row("rows", range, VoxelMask<Space::memory_space>("mask", *members), Space(), f);
  } else {
    for_each_row("rows", range, Space(), f);
  }
  Visited out{std::vector<int>(std::size_t(local.size())), std::vector<int>(std::size_t(local.size())), 0};
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(out.visits.data(), out.visits.size()), f.visits);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(out.path.data(), out.path.size()), f.path);
  Kokkos::deep_copy(Kokkos::View<int, Kokkos::HostSpace>(&out.wrong_neighbours), f.wrong_neighbours);
  return out;
}

/// The path a voxel at x of a row of nx voxels must take.
int expected_path(int x, int nx) {
  const bool inside = x > 0 && x < nx - 1;
  return inside && !BackendTraits<Space>::is_gpu ? row_path : general_path;
}

TEST(ForEachRow, VisitsEveryVoxelOnceInsideRowsByTheRowPath) {
  for (const Extents box : {Extents{9, 4, 6}, Extents{1, 3, 4}, Extents{2, 2, 4}, Extents{3, 5, 4}}) {
    const SlabPartition part(box, 0, 2);
    const Extents local = part.local();
    const VoxelRange owned = part.owned();
    const Visited got = run<3>(part, owned);
    EXPECT_EQ(got.wrong_neighbours, 0);
    for (index_t v = 0; v < local.size(); ++v) {
      const bool in = v >= owned.begin && v < owned.end;
      ASSERT_EQ(got.visits[std::size_t(v)], in ? 1 : 0) << "voxel " << v << " of " << local.nx << "x" << local.ny;
      if (in) {
        ASSERT_EQ(got.path[std::size_t(v)], expected_path(int(v % local.nx), local.nx)) << "voxel " << v;
      }
    }
  }
}

TEST(ForEachRow, TwoDimensionalRows) {
  const SlabPartition part(Extents{7, 6, 1});
  const Extents local = part.local();
  const Visited got = run<2>(part, part.owned());
  EXPECT_EQ(got.wrong_neighbours, 0);
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    ASSERT_EQ(got.visits[std::size_t(v)], 1);
    ASSERT_EQ(got.path[std::size_t(v)], expected_path(int(v % local.nx), local.nx));
  }
}

TEST(ForEachRow, MaskedRowsVisitTheMembersOnly) {
  const SlabPartition part(Extents{12, 3, 4});
  const Extents local = part.local();
  std::vector<bool> members(std::size_t(local.size()));
  // Runs of members broken at varied places: row ends, single voxels, whole rows.
  for (index_t v = 0; v < local.size(); ++v) members[std::size_t(v)] = v % 7 != 3 && v % 11 != 0;
  const Visited got = run<3>(part, part.owned(), &members);
  EXPECT_EQ(got.wrong_neighbours, 0);
  for (index_t v = 0; v < local.size(); ++v) {
    const bool in = v >= part.owned().begin && v < part.owned().end && members[std::size_t(v)];
    ASSERT_EQ(got.visits[std::size_t(v)], in ? 1 : 0) << "voxel " << v;
    if (in) {
      ASSERT_EQ(got.path[std::size_t(v)], expected_path(int(v % local.nx), local.nx)) << "voxel " << v;
    }
  }
}

/// The inner run (x in 1 .. nx - 2) of consecutive members of voxel v's row that holds v.
index_t inner_run_length(index_t v, int nx, const std::vector<bool>* members) {
  const index_t first = v - v % nx;
  const auto in = [&](index_t u) {
    return u > first && u < first + nx - 1 && (!members || (*members)[std::size_t(u)]);
  };
  index_t begin = v, end = v + 1;
  while (in(begin - 1)) --begin;
  while (in(end)) ++end;
  return end - begin;
}

TEST(ForEachRow, RerunnableRowsRunInChunksInsideTheirRuns) {
  // Rows of 17 to 40 voxels (inner runs shorter than, equal to and longer than a chunk), whole
  // and masked with runs of varied lengths.
  for (const int nx : {17, 18, 19, 33, 34, 40}) {
    const SlabPartition part(Extents{nx, 3, 4});
    const Extents local = part.local();
    std::vector<bool> members(std::size_t(local.size()));
    for (index_t v = 0; v < local.size(); ++v) members[std::size_t(v)] = v % 23 != 5 && v % 37 != 0;
    for (const bool masked : {false, true}) {
      const Visited got = run<3, true, true>(part, part.owned(), masked ? &members : nullptr);
      EXPECT_EQ(got.wrong_neighbours, 0);
      int twice = 0;
      for (index_t v = 0; v < local.size(); ++v) {
        const bool in = v >= part.owned().begin && v < part.owned().end && (!masked || members[std::size_t(v)]);
        const int n = got.visits[std::size_t(v)];
        if (!in) {
          ASSERT_EQ(n, 0) << "voxel " << v << ", nx " << nx;
          continue;
        }
        ASSERT_TRUE(n == 1 || n == 2) << "voxel " << v << " visited " << n << " times, nx " << nx;
        // Runs shorter than a chunk take the general path: the vector body has one loop.
        const int path = inner_run_length(v, nx, masked ? &members : nullptr) < row_chunk
                             ? general_path
                             : expected_path(int(v % local.nx), local.nx);
        ASSERT_EQ(got.path[std::size_t(v)], path) << "voxel " << v << ", nx " << nx << (masked ? ", masked" : "");
        twice += n == 2;
      }
      // On CPUs the inner 15 to 38 voxels of a whole row are whole chunks or overlap by the rest.
      if (!masked && !BackendTraits<Space>::is_gpu && (nx - 2) % int(row_chunk) != 0 && nx - 2 > int(row_chunk)) {
        EXPECT_GT(twice, 0) << "nx " << nx << ": no chunk overlapped";
      }
    }
  }
}

/// RecordVisits that also offers prefetch hints: each hint marks the chunk it runs ahead of.
template <bool Rerunnable>
struct RecordHints : RecordVisits<3, true, Rerunnable> {
  using Row = typename RecordVisits<3, true, Rerunnable>::Row;
  Kokkos::View<int*> hinted;  ///< chunk starts whose hint came, indexed by voxel
  KOKKOS_INLINE_FUNCTION void prefetch(index_t v, const Row&) const {
    const index_t chunk = v - row_prefetch_distance;
    if (chunk >= 0 && chunk < index_t(hinted.extent(0))) Kokkos::atomic_add(&hinted(chunk), 1);
  }
};
static_assert(!prefetches_rows<RecordVisits<3, true>>, "no prefetch member, no hints");
static_assert(prefetches_rows<RecordHints<false>>, "a prefetch(v, row) member is found");

/// Every voxel the row path updates lies in a chunk of row_chunk voxels whose hint came first,
/// row_prefetch_distance voxels ahead; the voxels the general path takes and GPUs get none.
template <bool Rerunnable>
void check_hints(const SlabPartition& part) {
  const Extents local = part.local();
  RecordHints<Rerunnable> f;
  f.local = local;
  f.visits = Kokkos::View<int*>("visits", local.size());
  f.path = Kokkos::View<int*>("path", local.size());
  f.wrong_neighbours = Kokkos::View<int>("wrong");
  f.hinted = Kokkos::View<int*>("hinted", local.size());
  for_each_row("rows", part.owned(), Space(), f);
  auto path = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.path);
  auto hinted = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.hinted);
  int hints = 0;
  for (index_t v = 0; v < local.size(); ++v) hints += hinted(v);
  if (BackendTraits<Space>::is_gpu) {
    EXPECT_EQ(hints, 0);
    return;
  }
  int row_voxels = 0;
  for (index_t v = part.owned().begin; v < part.owned().end; ++v) {
    if (path(v) != row_path) continue;
    ++row_voxels;
    bool covered = false;
    for (index_t c = v; c > v - row_chunk && c >= 0 && !covered; --c) covered = hinted(c) > 0;
    ASSERT_TRUE(covered) << "voxel " << v << " (x " << v % local.nx << ") updated with no hint ahead of it";
  }
  // A rerunnable functor's rows of fewer inner voxels than a chunk run per voxel, unhinted.
  EXPECT_EQ(row_voxels > 0, hints > 0) << row_voxels << " voxels by rows, " << hints << " hints";
  if (local.nx - 2 >= row_chunk) {
    EXPECT_GT(row_voxels, 0);
  }
}

TEST(ForEachRow, PrefetchHintsRunAheadOfEveryChunk) {
  for (const int nx : {5, 17, 40, 70}) {
    const SlabPartition part(Extents{nx, 3, 4});
    check_hints<false>(part);
    check_hints<true>(part);
  }
}

TEST(ForEachRow, PartialRowsAndOtherFunctorsRunPerVoxel) {
  const SlabPartition part(Extents{6, 3, 4});
  const VoxelRange owned = part.owned();
  const VoxelRange partial{owned.begin + 2, owned.end - 1};
  const Visited got = run<3>(part, partial);
  for (index_t v = 0; v < part.local().size(); ++v) {
    const bool in = v >= partial.begin && v < partial.end;
    ASSERT_EQ(got.visits[std::size_t(v)], in ? 1 : 0) << "voxel " << v;
    if (in) {
      ASSERT_EQ(got.path[std::size_t(v)], general_path) << "voxel " << v;
    }
  }
  const Visited whole = run<3, false>(part, owned);
  for (index_t v = owned.begin; v < owned.end; ++v) {
    ASSERT_EQ(whole.visits[std::size_t(v)], 1) << "voxel " << v;
    ASSERT_EQ(whole.path[std::size_t(v)], general_path) << "voxel " << v;
  }
}

TEST(ForEachRow, RefusesARangeOutsideTheMask) {
  const SlabPartition part(Extents{4, 2, 4});
  const std::vector<bool> members(std::size_t(part.owned().end - 4), true);
  EXPECT_THROW(run<3>(part, part.owned(), &members), Error);
}

}  // namespace
