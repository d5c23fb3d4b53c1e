#include "divergence.hpp"

#include <karman/lbm/variants.hpp>

#include <climits>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

namespace karman::app {

Divergence find_divergence(const comm::Ranks& ranks, const lbm::MomentFields& m, const lbm::OwnedBox& box) {
  const auto rho = m.rho;
  const auto u = m.u;
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "karman::find_divergence", Kokkos::RangePolicy<>(0, rho.extent(0)),
      KOKKOS_LAMBDA(const long long i, long long& found) {
        const double r = rho(i);
        // Comparisons with NaN are false, so NaN fails each range test.
        bool bad = !(r >= 0 && r <= max_sane_density);
        for (int a = 0; a < 3; ++a) bad = bad || !(u(i, a) >= -max_sane_velocity && u(i, a) <= max_sane_velocity);
        if (bad && i < found) found = i;
      },
      Kokkos::Min<long long>(first));
  // Box order and global order agree within a box (both z, y, x lexicographic), so the box's
  // first bad voxel is its first in global order.
  const Extents& g = box.global;
  const double local_first = first == LLONG_MAX ? -1.0 : double(box.global_index(first));
  // The lowest global index wins: maximise its negation (no bad voxel: -1 -> +1, never chosen).
  const double global_first = -ranks.max(local_first < 0 ? -std::numeric_limits<double>::max() : -local_first);
  Divergence d;
  if (global_first == std::numeric_limits<double>::max()) return d;
  d.found = true;
  std::vector<double> mine(5, -1.0);
  if (local_first == global_first) {
    // The voxel's row of u is strided (LayoutLeft), which a device-to-host deep_copy refuses:
    // gather its four values on the device first.
    Kokkos::View<double[4]> voxel("karman::divergent_voxel");
    const long long at = first;
    Kokkos::parallel_for(
        "karman::read_divergent_voxel", Kokkos::RangePolicy<>(0, 1), KOKKOS_LAMBDA(const int) {
          voxel(0) = rho(at);
          for (int a = 0; a < 3; ++a) voxel(1 + a) = u(at, a);
        });
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), voxel);
    mine = {global_first, host(0), host(1), host(2), host(3)};
  }
  const std::vector<double> all = ranks.gather(mine);
  for (std::size_t r = 0; r + 4 < all.size(); r += 5) {
    if (all[r] != global_first) continue;
    d.rho = all[r + 1];
    for (int a = 0; a < 3; ++a) d.u[a] = all[r + 2 + a];
  }
  const long long index = static_cast<long long>(global_first);
  d.x = int(index % g.nx);
  d.y = int((index / g.nx) % g.ny);
  d.z = int(index / (static_cast<long long>(g.nx) * g.ny));
  return d;
}

void inject_nan(lbm::FlowSolver& solver, const std::string& precision) {
  const lbm::OwnedBox box = solver.owned_box();
  const Extents& g = box.global;
  const int centre[3] = {g.nx / 2, g.ny / 2, g.nz / 2};
  for (std::size_t a = 0; a < 3; ++a)
    if (centre[a] < box.begin[a] || centre[a] >= box.begin[a] + box.extents.extent(int(a))) return;
  const index_t voxel = box.extents.index(centre[0] - box.begin[0], centre[1] - box.begin[1], centre[2] - box.begin[2]);
  const std::size_t q = std::size_t(solver.populations()), size = std::size_t(solver.population_size());
  std::vector<std::byte> populations(std::size_t(box.size()) * q * size);
  solver.save_populations(populations.data());
  lbm::dispatch<lbm::Precisions>(precision, [&](auto tag) {
    using P = lbm::precision_t<lbm::tag_type<decltype(tag)>>;
    const typename P::storage nan = P::encode(std::numeric_limits<typename P::compute>::quiet_NaN());
    for (std::size_t i = 0; i < q; ++i)
      std::memcpy(populations.data() + (std::size_t(voxel) * q + i) * size, &nan, size);
  });
  solver.load_populations(populations.data(), solver.steps());
}

std::string stability_advice(const lbm::Variant& variant, bool moment_collisions) {
  const std::string collision = variant.collision.name();
  std::vector<std::string> cures;
  if (collision == "bgk") cures = {"trt"};
  if (collision == "trt" && moment_collisions) cures = {"cm", "mrt"};
  std::string named;
  for (const std::string& cure : cures) {
    if (lbm::collision_defined_for(cure, variant.lattice.name())) named += (named.empty() ? "" : " or ") + cure;
  }
  if (named.empty()) return "lower --re or the velocity, or raise the resolution";
  return "lower --re or the velocity, raise the resolution, or try --collision " + named;
}

}  // namespace karman::app
