// Explicit heat diffusion on a Disaggregated field through the installed Karman::core.
// A sine mode along periodic x decays by exactly g = 1 - 4 r sin^2(pi k / nx) per step,
// so the result is checked against the discrete solution, not against itself.
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/partition.hpp>

#include <cmath>
#include <cstdio>

using namespace karman;
namespace math = karman::compat::math;
using HeatField = Field<double, Disaggregated>;

struct Diffuse {
  HeatField in, out;
  Extents local;
  double r;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const int x = int(v % local.nx);
    const index_t row = v - x;
    const index_t left = row + (x + local.nx - 1) % local.nx, right = row + (x + 1) % local.nx;
    out(v, 0) = in(v, 0) + r * (in(left, 0) - 2.0 * in(v, 0) + in(right, 0));
  }
};

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const SlabPartition part(Extents{32, 4, 6});
  const double pi = std::acos(-1.0), r = 0.25;
  const int k = 3, steps = 20, nx = part.local().nx;
  HeatField a("a", part.groups(), 1), b("b", part.groups(), 1);
  for_each(
      "heat_init", part.owned(), Kokkos::DefaultExecutionSpace(),
      KOKKOS_LAMBDA(index_t v) { a(v, 0) = math::sin(2.0 * pi * k * double(v % nx) / nx); });
  for (int s = 0; s < steps; ++s) {
    for (Group g : {Group::interior, Group::shared_lo, Group::shared_hi})
      for_each("heat_step", part, g, Kokkos::DefaultExecutionSpace(), Diffuse{a, b, part.local(), r});
    std::swap(a, b);
  }
  const double decay = std::pow(1.0 - 4.0 * r * std::pow(std::sin(pi * k / nx), 2), steps);
  double max_error = 0;
  Kokkos::parallel_reduce(
      "heat_error", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(part.owned().begin, part.owned().end),
      KOKKOS_LAMBDA(index_t v, double& err) {
        const double exact = decay * math::sin(2.0 * pi * k * double(v % nx) / nx);
        err = math::fmax(err, math::fabs(a(v, 0) - exact));
      },
      Kokkos::Max<double>(max_error));
  std::printf("heat_consumer: %d steps on %dx%dx%d Disaggregated, max error %.3e (decay %.6f)\n", steps,
              part.global().nx, part.global().ny, part.global().nz, max_error, decay);
  return decay > 0.1 && max_error < 1e-12 * decay ? 0 : 1;
}
