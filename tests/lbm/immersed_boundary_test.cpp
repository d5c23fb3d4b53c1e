// The per-voxel force field and the immersed-boundary method: the delta kernels' moment
// conditions, exact interpolation of linear fields, spreading that conserves the total force,
// Morton order; a uniform force given as a field gives the uniform force's fields bitwise, a
// force-field Poiseuille channel matches the parabola; an immersed plate moving in a channel
// drives Couette flow with the analytic wall shear; a sphere in 3D.
#include "lbm_test_support.hpp"

#include <karman/lbm/cases/channel.hpp>
#include <karman/lbm/delta_kernel.hpp>
#include <karman/lbm/immersed_boundary.hpp>
#include <karman/lbm/lagrangian_markers.hpp>
#include <karman/lbm/solver_factory.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

namespace {

using namespace karman;
using namespace karman::lbm;

// Sum over the kernel's voxels of phi and of (x - j) phi at many offsets x.
template <class Kernel>
void check_moments() {
  double square_sum = 0;
  for (int s = 0; s <= 100; ++s) {
    const double x = 7.0 + 0.01 * s;
    const DeltaStencil1D<Kernel> st(x);
    double sum = 0, first = 0, squares = 0;
    for (int k = 0; k < Kernel::support; ++k) {
      sum += st.weight[k];
      first += (x - (st.first + k)) * st.weight[k];
      squares += st.weight[k] * st.weight[k];
      // Every voxel the kernel reaches is in the stencil: phi vanishes at the next ones.
      EXPECT_EQ(Kernel::phi(x - (st.first - 1)), 0.0) << Kernel::name << " x " << x;
      EXPECT_EQ(Kernel::phi(x - (st.first + Kernel::support)), 0.0) << Kernel::name << " x " << x;
    }
    EXPECT_NEAR(sum, 1.0, 1e-14) << Kernel::name << " x " << x;
    if (Kernel::first_moment) {
      EXPECT_NEAR(first, 0.0, 1e-14) << Kernel::name << " x " << x;
    }
    if (s == 37) square_sum = squares;
  }
  // Peskin's third condition, where the kernel has one: sum phi^2 is the same everywhere.
  if (std::string(Kernel::name) == "roma3") {
    EXPECT_NEAR(square_sum, 0.5, 1e-14);
  } else if (std::string(Kernel::name) == "peskin4") {
    EXPECT_NEAR(square_sum, 3.0 / 8.0, 1e-14);
  }
}

TEST(DeltaKernel, PartitionOfUnityAndFirstMoment) {
  check_moments<LinearDelta>();
  check_moments<Roma3Delta>();
  check_moments<Peskin4Delta>();
  check_moments<Cosine4Delta>();
  // The cosine kernel's first moment is not zero: it is declared so.
  const DeltaStencil1D<Cosine4Delta> st(7.3);
  double first = 0;
  for (int k = 0; k < 4; ++k) first += (7.3 - (st.first + k)) * st.weight[k];
  EXPECT_GT(std::fabs(first), 1e-3);
}

TEST(DeltaKernel, NamesRoundTripAndUnknownRefused) {
  for (DeltaKernel k : {DeltaKernel::linear, DeltaKernel::roma3, DeltaKernel::peskin4, DeltaKernel::cosine4})
    EXPECT_EQ(delta_kernel_from_name(delta_kernel_name(k)), k);
  try {
    delta_kernel_from_name("gauss");
    FAIL() << "an unknown kernel was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gauss"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("roma3"), std::string::npos);
  }
}

// A linear field is interpolated exactly by kernels with both moment conditions, in 2D and 3D.
template <int D, class Kernel>
void check_linear_interpolation() {
  const MarkerBox box{D == 3 ? Extents{24, 24, 24} : Extents{24, 24, 1}, {0, 0, 0}, 24, false};
  auto field = [](int i, int j, int k) { return 0.3 + 1.7 * i - 0.4 * j + (D == 3 ? 2.1 * k : 0.0); };
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> pos(6.0, 16.0);
  for (int trial = 0; trial < 50; ++trial) {
    const double p[3] = {pos(rng), pos(rng), D == 3 ? pos(rng) : 0.0};
    const MarkerStencil<D, Kernel> st(p);
    double u = 0, weights = 0;
    for (int n = 0; n < st.points; ++n) {
      index_t v = 0;
      double w = 0;
      if (!st.point(box, n, v, w)) continue;
      u += w * field(box.local.coordinate(v, 0), box.local.coordinate(v, 1), box.local.coordinate(v, 2));
      weights += w;
    }
    EXPECT_NEAR(weights, 1.0, 1e-13);
    EXPECT_NEAR(u, 0.3 + 1.7 * p[0] - 0.4 * p[1] + (D == 3 ? 2.1 * p[2] : 0.0), 1e-12) << Kernel::name;
  }
}

// Slabs of a periodic slab axis (y in 2D, 14 planes as 4 + 3 + 4 + 3) split every stencil: each
// global voxel it reaches is owned by exactly one slab, after wrapping across the ends, and the
// weights over all slabs add up to 1, as they do in one box of the same 14 planes.
TEST(ImmersedBoundary, StencilsSplitBetweenSlabsAndWrapAroundThePeriodicAxis) {
  const int planes = 14, first[] = {0, 4, 7, 11, planes};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> along(0.0, double(planes));
  for (int trial = 0; trial < 40; ++trial) {
    const double p[3] = {4.3, trial < 4 ? planes - 0.2 * trial : along(rng), 0.0};
    const MarkerStencil<2, Peskin4Delta> st(p);
    std::vector<int> reached;
    double weights = 0;
    for (int r = 0; r < 4; ++r) {
      // Slab r: planes first[r] .. first[r + 1] - 1 with a halo plane on either side.
      const MarkerBox box{Extents{12, first[r + 1] - first[r] + 2, 1}, {0, first[r] - 1, 0}, planes, true};
      for (int n = 0; n < st.points; ++n) {
        index_t v = 0;
        double w = 0;
        if (!st.point(box, n, v, w)) continue;
        const int y = box.local.coordinate(v, 1);
        EXPECT_TRUE(y >= 1 && y <= first[r + 1] - first[r]) << "a halo plane reached by slab " << r;
        reached.push_back(int(box.local.coordinate(v, 0)) + 100 * (y + box.origin[1]));
        weights += w;
      }
    }
    std::sort(reached.begin(), reached.end());
    EXPECT_EQ(std::adjacent_find(reached.begin(), reached.end()), reached.end()) << "a voxel reached twice, y " << p[1];
    EXPECT_EQ(reached.size(), std::size_t(st.points)) << "y " << p[1];
    EXPECT_NEAR(weights, 1.0, 1e-13) << "y " << p[1];
  }
}

TEST(ImmersedBoundary, LinearFieldInterpolatedExactly) {
  check_linear_interpolation<2, LinearDelta>();
  check_linear_interpolation<2, Roma3Delta>();
  check_linear_interpolation<2, Peskin4Delta>();
  check_linear_interpolation<3, LinearDelta>();
  check_linear_interpolation<3, Roma3Delta>();
  check_linear_interpolation<3, Peskin4Delta>();
}

// Spreading markers' forces (atomic additions from parallel threads) puts their total, force
// times area, into the field, also for markers whose stencils overlap and wrap across x; and
// the sums at every voxel do not depend on the order in which the markers add (fixed point):
// the markers in reverse order give the same bits.
template <int D, class Kernel>
void check_spreading_conserves_force() {
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  const Extents box = D == 3 ? Extents{12, 12, 14} : Extents{12, 14, 1};
  MarkerSet set;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> across(-0.4, 11.4), along(4.0, 9.0), area(0.5, 1.5);
  for (int m = 0; m < 500; ++m) {
    set.position.push_back({across(rng), D == 3 ? across(rng) : along(rng), D == 3 ? along(rng) : 0.0});
    set.area.push_back(area(rng));
  }
  const MarkerSet sorted = set.sorted();
  MarkerSet reversed;
  reversed.position.assign(sorted.position.rbegin(), sorted.position.rend());
  reversed.area.assign(sorted.area.rbegin(), sorted.area.rend());
  auto spread = [&](const MarkerSet& order, bool reverse_increments) {
    LagrangianMarkers<Space> markers(order);
    auto increment = Kokkos::create_mirror_view(markers.increment);
    const std::size_t n = order.size();
    for (std::size_t m = 0; m < n; ++m) {
      const std::size_t k = reverse_increments ? n - 1 - m : m;
      for (int d = 0; d < D; ++d) increment(m, d) = 0.01 * double((k * 7 + std::size_t(d) * 3) % 11) - 0.05;
    }
    Kokkos::deep_copy(markers.increment, increment);
    SpreadForce<Space> field("spread", std::size_t(box.size()), D);
    MarkerSpreading<D, Space, Kernel> spreading{field, markers, {box, {0, 0, 0}}};
    Kokkos::parallel_for("spread", Kokkos::RangePolicy<>(0, markers.size()), spreading);
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  };
  double expected[3] = {0, 0, 0};
  for (std::size_t m = 0; m < sorted.size(); ++m)
    for (int d = 0; d < D; ++d)
      expected[d] += (0.01 * double((m * 7 + std::size_t(d) * 3) % 11) - 0.05) * sorted.area[m];
  const auto forward = spread(sorted, false);
  const auto backward = spread(reversed, true);
  for (int d = 0; d < D; ++d) {
    double total = 0;
    bool same = true;
    for (index_t v = 0; v < box.size(); ++v) {
      total += FixedPointSum::to(forward(std::size_t(v), d));
      same = same && forward(std::size_t(v), d) == backward(std::size_t(v), d);
    }
    // Each of the 500 x 4^D terms is rounded to 2^-41 at most.
    EXPECT_NEAR(total, expected[d], 1e-8) << Kernel::name << " axis " << d;
    EXPECT_TRUE(same) << Kernel::name << " axis " << d << ": the sums depend on the markers' order";
  }
}

TEST(ImmersedBoundary, SpreadingConservesTotalForce) {
  check_spreading_conserves_force<2, Roma3Delta>();
  check_spreading_conserves_force<2, Peskin4Delta>();
  check_spreading_conserves_force<3, Roma3Delta>();
  check_spreading_conserves_force<3, LinearDelta>();
}

TEST(LagrangianMarkers, MortonOrder) {
  // Markers on a circle come out in non-decreasing code order, a permutation of the input.
  const MarkerSet circle = circle_markers(40.3, 31.7, 5.2, 17.0, 107);
  const auto order = marker_order(circle.position);
  std::vector<bool> seen(order.size(), false);
  std::uint64_t last = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto& p = circle.position[order[k]];
    const std::uint64_t code = morton_code(std::uint32_t(std::floor(p[0]) + 1), std::uint32_t(std::floor(p[1]) + 1),
                                           std::uint32_t(std::floor(p[2]) + 1));
    EXPECT_GE(code, last);
    last = code;
    EXPECT_FALSE(seen[order[k]]);
    seen[order[k]] = true;
  }
  const MarkerSet sorted = circle.sorted();
  EXPECT_EQ(sorted.position[0], circle.position[order[0]]);
  EXPECT_EQ(sorted.area.size(), circle.area.size());
}

// Blocks of l^3 voxels (Chen et al. §4.2.2): each block's markers are contiguous, blocks follow
// in x-y-z order over the markers' bounding box, Morton order inside a block; a permutation.
TEST(LagrangianMarkers, BlockOrder) {
  const MarkerSet sphere = sphere_markers({20.4, 17.9, 23.2}, 9.3, 1500);
  for (const int block : {1, 2, 3, 4, 8, 64}) {
    const auto order = marker_order(sphere.position, block);
    ASSERT_EQ(order.size(), sphere.size());
    std::vector<bool> seen(order.size(), false);
    std::array<std::uint32_t, 3> low{~0u, ~0u, ~0u}, high{0, 0, 0};
    for (const auto& p : sphere.position) {
      const auto c = marker_cell(p);
      for (std::size_t d = 0; d < 3; ++d) low[d] = std::min(low[d], c[d]), high[d] = std::max(high[d], c[d]);
    }
    std::uint64_t last_block = 0, last_code = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      ASSERT_LT(order[k], seen.size());
      EXPECT_FALSE(seen[order[k]]);
      seen[order[k]] = true;
      const auto c = marker_cell(sphere.position[order[k]]);
      std::uint64_t index = 0;
      std::uint32_t within[3];
      for (int d = 2; d >= 0; --d) {
        const auto u = std::size_t(d);
        index = index * ((high[u] - low[u]) / std::uint32_t(block) + 1) + (c[u] - low[u]) / std::uint32_t(block);
        within[d] = (c[u] - low[u]) % std::uint32_t(block);
      }
      const std::uint64_t code = morton_code(within[0], within[1], within[2]);
      EXPECT_GE(index, last_block) << "block " << block << ", marker " << k;
      if (index == last_block && k > 0) {
        EXPECT_GE(code, last_code) << "block " << block << ", marker " << k;
      }
      last_block = index;
      last_code = code;
    }
  }
  // l = 1: every voxel a block, i.e. voxels in x-y-z order.
  const auto rows = marker_order(sphere.position, 1);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const auto a = marker_cell(sphere.position[rows[k - 1]]), b = marker_cell(sphere.position[rows[k]]);
    EXPECT_TRUE(std::make_tuple(a[2], a[1], a[0]) <= std::make_tuple(b[2], b[1], b[0]));
  }
  EXPECT_THROW(marker_order(sphere.position, -1), Error);
}

// The Fibonacci sphere: every marker on the sphere, areas summing to its surface, no two
// markers closer than half the mean spacing, the centroid at the centre.
TEST(LagrangianMarkers, SphereMarkers) {
  const double pi = 3.14159265358979323846, r = 7.5;
  const std::array<double, 3> c{10.25, 11.5, 12.75};
  const MarkerSet s = sphere_markers(c, r, 700);
  ASSERT_EQ(s.size(), 700u);
  double area = 0, centroid[3] = {0, 0, 0};
  for (std::size_t m = 0; m < s.size(); ++m) {
    double d2 = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      d2 += (s.position[m][d] - c[d]) * (s.position[m][d] - c[d]);
      centroid[d] += s.position[m][d] / double(s.size());
    }
    EXPECT_NEAR(std::sqrt(d2), r, 1e-12);
    area += s.area[m];
  }
  EXPECT_NEAR(area, 4 * pi * r * r, 1e-9);
  for (std::size_t d = 0; d < 3; ++d) EXPECT_NEAR(centroid[d], c[d], 0.02 * r);
  const double spacing = std::sqrt(4 * pi * r * r / double(s.size()));
  double closest = 1e30;
  for (std::size_t a = 0; a < s.size(); ++a)
    for (std::size_t b = a + 1; b < s.size(); ++b) {
      double d2 = 0;
      for (std::size_t d = 0; d < 3; ++d)
        d2 += (s.position[a][d] - s.position[b][d]) * (s.position[a][d] - s.position[b][d]);
      closest = std::min(closest, std::sqrt(d2));
    }
  EXPECT_GT(closest, 0.5 * spacing);
  EXPECT_THROW(sphere_markers(c, r, 3), Error);
}

cases::ChannelParams small_channel() {
  cases::ChannelParams p;
  p.height = 16;
  p.length = 4;
  p.max_velocity = 0.02;
  p.reynolds = p.max_velocity * p.height / 0.1;
  return p;
}

// A uniform force given as a field is the uniform force, bitwise on CPUs: the field kernels do the
// uniform kernels' arithmetic with the voxel's own force.
TEST(ForceField, UniformFieldIsBitwiseTheUniformForce) {
  for (const char* collision : {"bgk", "trt"}) {
    for (const char* layout : {"soa", "aos"}) {
      const Variant v{"d2q9", "double", layout, collision, "ab"};
      if (!test::compiled(v)) continue;
      const SolverSetup uniform = cases::channel_setup(small_channel(), v);
      SolverSetup field = uniform;
      const std::array<double, 3> force{uniform.relaxation.force[0], uniform.relaxation.force[1],
                                        uniform.relaxation.force[2]};
      field.force_field = [force](int, int, int) { return force; };
      const auto a = test::run(uniform, 500), b = test::run(field, 500);
      ASSERT_EQ(a.u.size(), b.u.size());
      // Host builds compile without floating-point contraction (-ffp-contract=off), so both kernels
      // do the same roundings; nvcc fuses multiply-adds where it sees them, and a force read from
      // memory is fused differently from one held in the kernel's arguments: a few units in the
      // last place on GPUs.
      constexpr bool host =
          Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;
      const double slack = host ? 0.0 : 1e-12;
      for (std::size_t k = 0; k < a.u.size(); ++k) {
        ASSERT_LE(std::fabs(a.u[k] - b.u[k]), slack * 1e-2) << collision << " " << layout << " " << k;
      }
      for (std::size_t k = 0; k < a.rho.size(); ++k) {
        ASSERT_LE(std::fabs(a.rho[k] - b.rho[k]), slack) << collision << " " << layout;
      }
    }
  }
}

// A channel driven by a force field that pushes only the fluid rows: TRT (Lambda = 3/16) puts the
// half-way walls exactly, so the parabola comes out to round-off.
TEST(ForceField, PoiseuilleMatchesTheParabola) {
  const Variant v{"d2q9", "double", "soa", "trt", "ab"};
  if (!test::compiled(v)) GTEST_SKIP() << "d2q9/double/soa not compiled";
  const cases::ChannelParams p = small_channel();
  SolverSetup s = cases::channel_setup(p, v);
  const double g = s.relaxation.force[0];
  const int walls_at = p.height + 1;
  s.force_field = [g, walls_at](int, int y, int) {
    return std::array<double, 3>{y == 0 || y == walls_at ? 0.0 : g, 0.0, 0.0};
  };
  const auto m = test::run(s, 16000);
  double num = 0, den = 0;
  for (int j = 1; j <= p.height; ++j) {
    const double exact = cases::poiseuille_velocity(p, j), got = m.u[3 * std::size_t(j * p.length + 1)];
    num += (got - exact) * (got - exact);
    den += exact * exact;
  }
  std::printf("force-field poiseuille trt: L2 error %.3e\n", std::sqrt(num / den));
  EXPECT_LE(std::sqrt(num / den), 1e-8);
}

TEST(ForceField, RefusedWhereNotCompiled) {
  for (const char* pattern_collision : {"aa/bgk", "ab/mrt"}) {
    const std::string pc = pattern_collision;
    const Variant v{"d2q9", "double", "soa", pc.substr(3).c_str(), pc.substr(0, 2).c_str()};
    if (!test::compiled(v)) continue;
    SolverSetup s = cases::channel_setup(small_channel(), v);
    s.force_field = [](int, int, int) { return std::array<double, 3>{1e-6, 0, 0}; };
    try {
      make_solver(s);
      FAIL() << pattern_collision << " accepted a force field";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--pattern ab"), std::string::npos) << what;
      EXPECT_NE(what.find("bgk or trt"), std::string::npos) << what;
    }
  }
}

// Couette flow from an immersed plate: a line of markers across a periodic channel between two
// walls at rest moves along itself at U (the prescribed motion, RigidMotion). The steady flow is
// linear on either side; the plate's velocity is held, and the force on the plate is the wall
// shear of both sides, -2 rho nu U / h per unit length, h from the surface of the plate to a wall.
TEST(ImmersedBoundary, MovingPlateDrivesCouetteFlow) {
  const Variant v{"d2q9", "double", "soa", "bgk", "ab"};
  if (!test::compiled(v)) GTEST_SKIP() << "d2q9/double/soa not compiled";
  constexpr int nx = 8, ny = 24;  // walls in rows 0 and 23 (surfaces at y = 0.5 and 22.5), plate at 11.5
  const double u_plate = 0.01, plate_y = 11.5, h = 11.0;
  SolverSetup s;
  s.variant = v;
  s.global = {nx, ny, 1};
  s.periodic = {true, false, true};
  s.relaxation.omega = 1.0;  // nu = 1/6
  s.geometry = [](int, int y, int) { return (y == 0 || y == ny - 1) ? CellSpec{CellKind::solid, 0} : CellSpec{}; };
  for (int m = 0; m < 2 * nx; ++m) {
    s.immersed_body.markers.position.push_back({0.5 * m + 0.25, plate_y, 0.0});
    s.immersed_body.markers.area.push_back(0.5);
  }
  s.immersed_body.forcing_iterations = 3;
  s.immersed_body.motion = [u_plate](double) {
    RigidMotion r;
    r.velocity[0] = u_plate;  // moving along itself: the line stays where it is
    return r;
  };
  auto solver = make_solver(s);
  EXPECT_EQ(solver->immersed_markers(), std::size_t(2 * nx));
  solver->advance(8000);  // about 13 diffusion times h^2 / nu
  const auto m = test::host_moments(*solver);
  const double nu = 1.0 / 6.0;
  auto ux = [&](int j) { return m.u[3 * std::size_t(j * nx + 3)]; };
  // Outside the plate's kernel the profile is a line through the wall at rest (y = 0.5), the
  // same on both sides.
  const double slope = (ux(9) - ux(3)) / 6.0;
  for (int j : {2, 3, 6, 9}) {
    EXPECT_NEAR(ux(j), slope * (j - 0.5), 1e-3 * u_plate) << "row " << j;
    EXPECT_NEAR(ux(ny - 1 - j), ux(j), 1e-9) << "row " << j;
  }
  // The plate moves the fluid at its markers (rows 11 and 12 straddle them) at its own velocity.
  EXPECT_NEAR(ux(11), u_plate, 2e-3 * u_plate);
  EXPECT_NEAR(ux(12), u_plate, 2e-3 * u_plate);
  // The force on the plate is the shear of the fluid on both sides: the momentum the markers put
  // in leaves through the walls.
  const auto f = solver->body_force();
  const double from_profile = -2.0 * nu * slope * nx, analytic = -2.0 * nu * u_plate / h * nx;
  std::printf("immersed plate: force %.6e, from the profile %.6e, analytic %.6e (%.2f %%)\n", f[0], from_profile,
              analytic, 100 * (f[0] / analytic - 1));
  EXPECT_NEAR(f[0] / from_profile, 1.0, 1e-3);
  EXPECT_NEAR(f[1], 0.0, 1e-6 * std::fabs(analytic));
  // A direct-forcing surface acts about half a voxel further out than its markers (the kernel's
  // width; Breugem 2012): the plate is about a voxel thick, h about half a voxel shorter.
  EXPECT_NEAR(f[0] / analytic, h / (h - 0.5), 0.01);
}

// In 3D: a sphere at rest in a periodic box of fluid set moving feels a drag along the flow and
// none across it (by symmetry, up to the markers' arrangement). The order of the markers'
// threads (Chen et al.'s block size l) changes only the order of the atomic additions, which
// the fixed-point sums do not see: the same bits.
TEST(ImmersedBoundary, SphereDragIn3D) {
  const Variant v{"d3q19", "float", "soa", "bgk", "ab"};
  if (!test::compiled(v)) GTEST_SKIP() << "d3q19/float/soa not compiled";
  const int n = 16;
  auto drag = [&](int marker_block) {
    SolverSetup s;
    s.variant = v;
    s.global = {n, n, n};
    s.periodic = {true, true, true};
    s.relaxation.omega = 1.2;
    s.initial = [](int, int, int) {
      FlowState st;
      st.u[0] = 0.02;
      return st;
    };
    const double c = 0.5 * (n - 1);
    s.immersed_body.markers = sphere_markers({c, c, c}, 3.0, 120);
    s.immersed_body.kernel = DeltaKernel::peskin4;
    s.immersed_body.marker_block = marker_block;
    auto solver = make_solver(s);
    solver->advance(50);
    return solver->body_force();
  };
  const auto f = drag(0);
  std::printf("sphere: force %.4e %.4e %.4e\n", f[0], f[1], f[2]);
  EXPECT_GT(f[0], 0.0);
  EXPECT_LT(std::fabs(f[1]), 0.05 * f[0]);
  EXPECT_LT(std::fabs(f[2]), 0.05 * f[0]);
  // Another marker order adds the same terms in another order: the same bits (fixed-point sums).
  for (const int block : {1, 2, 4}) {
    const auto g = drag(block);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(g[std::size_t(d)], f[std::size_t(d)]) << "l = " << block;
  }
}

}  // namespace
