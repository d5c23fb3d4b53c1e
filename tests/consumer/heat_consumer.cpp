// Explicit heat diffusion on a Disaggregated field through the installed Karman::core, as a
// downstream Kokkos code writes it: neighbours through karman::Neighbours, the slab axis made
// periodic by the core's halo exchange, its plan keyed by the partition's neighbours. A mode sin(2 pi (kx x / nx + kz z
// / nz)) decays by exactly g = 1 - 4 r (sin^2(pi kx / nx) + sin^2(pi kz / nz)) per step, so the result is checked
// against the discrete solution, not against itself; the halo planes are checked to be exact copies of the opposite
// owned planes.
#include <karman/core/dense/neighbours.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/field.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/periodic_exchange.hpp>

#include <cmath>
#include <cstdio>

using namespace karman;
namespace math = karman::compat::math;
using HeatField = Field<double, Disaggregated>;

/// One step of the 7-point explicit scheme; reads a read-only field, writes another.
struct Diffuse {
  HeatField::const_type in;
  HeatField out;
  Extents local;
  double r;
  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const Neighbours<3> nb(v, local);
    double laplacian = -6.0 * in(v, 0);
    for (int c = -1; c <= 1; c += 2) laplacian += in(nb.at(c, 0, 0), 0) + in(nb.at(0, c, 0), 0) + in(nb.at(0, 0, c), 0);
    out(v, 0) = in(v, 0) + r * laplacian;
  }
};

/// Voxels of the halo planes that differ from the owned plane they copy (periodic along z).
int halo_mismatches(const SlabPartition& part, const HeatField& field) {
  auto host = create_mirror_view(field);
  deep_copy(host, field);
  const index_t wrap = part.owned().size();
  int bad = 0;
  const VoxelRange below = part.group(part.halo_group(part.lower()));
  const VoxelRange above = part.group(part.halo_group(part.upper()));
  for (index_t v = below.begin; v < below.end; ++v) bad += host(v, 0) != host(v + wrap, 0);
  for (index_t v = above.begin; v < above.end; ++v) bad += host(v, 0) != host(v - wrap, 0);
  return bad;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const SlabPartition part(Extents{32, 4, 12});
  const Extents local = part.local();
  const double pi = std::acos(-1.0), r = 0.125;
  const int kx = 3, kz = 1, steps = 20, nx = local.nx, nz = part.global().nz;
  HeatField a("a", part.groups(), 1), b("b", part.groups(), 1);
  for_each(
      "heat_init", part.owned(), Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        const double x = double(v % nx), z = double(v / local.plane_size() - 1);  // local plane 0 is the lower halo
        a(v, 0) = math::sin(2.0 * pi * (kx * x / nx + kz * z / nz));
      });
  // Every neighbour reads the shared voxels facing it and fills the halo facing it. The single
  // rank is its own neighbour along z: the top owned plane fills the lower halo, the bottom
  // one the upper halo.
  HaloPlan plan;
  for (const NeighbourStep n : part.neighbours()) {
    plan.sends.push_back({part.shared_group(n), {0, 1}, n});
    plan.receives.push_back({part.halo_group(n), {0, 1}, n});
  }
  PeriodicSelfExchanger<HeatField> exchanger;
  int bad_halo = 0;
  for (int s = 0; s < steps; ++s) {
    exchanger.start(a, plan);
    exchanger.finish();
    if (s == 0) bad_halo = halo_mismatches(part, a);
    for (int g : {part.interior_group(), part.shared_group(part.lower()), part.shared_group(part.upper())})
      for_each("heat_step", part, g, Kokkos::DefaultExecutionSpace(), Diffuse{a, b, local, r});
    std::swap(a, b);
  }
  const double g = 1.0 - 4.0 * r * (std::pow(std::sin(pi * kx / nx), 2) + std::pow(std::sin(pi * kz / nz), 2));
  const double decay = std::pow(g, steps);
  double max_error = 0;
  Kokkos::parallel_reduce(
      "heat_error", Kokkos::RangePolicy<Kokkos::IndexType<index_t>>(part.owned().begin, part.owned().end),
      KOKKOS_LAMBDA(index_t v, double& err) {
        const double x = double(v % nx), z = double(v / local.plane_size() - 1);
        const double exact = decay * math::sin(2.0 * pi * (kx * x / nx + kz * z / nz));
        err = math::fmax(err, math::fabs(a(v, 0) - exact));
      },
      Kokkos::Max<double>(max_error));
  std::printf(
      "heat_consumer: %d steps on %dx%dx%d Disaggregated, periodic halo exchange (%d halo mismatches), "
      "max error %.3e (decay %.6f)\n",
      steps, part.global().nx, part.global().ny, part.global().nz, bad_halo, max_error, decay);
  return bad_halo == 0 && decay > 0.1 && max_error < 1e-12 * decay ? 0 : 1;
}
