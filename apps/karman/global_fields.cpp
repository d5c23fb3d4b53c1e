#include "global_fields.hpp"

#include <Kokkos_Core.hpp>

namespace karman::app {

HostSlab to_host(const lbm::MomentFields& m) {
  auto rho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.rho);
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.u);
  HostSlab s;
  s.rho.assign(rho.data(), rho.data() + rho.extent(0));
  for (int d = 0; d < 3; ++d) s.u[d].assign(&u(0, d), &u(0, d) + u.extent(0));
  return s;
}

std::vector<lbm::OwnedBox> gather_boxes(const comm::Ranks& ranks, const lbm::OwnedBox& mine) {
  const std::vector<long long> all = ranks.all_gather(
      {mine.begin[0], mine.begin[1], mine.begin[2], mine.extents.nx, mine.extents.ny, mine.extents.nz});
  std::vector<lbm::OwnedBox> boxes(all.size() / 6, mine);
  for (std::size_t r = 0; r < boxes.size(); ++r) {
    for (std::size_t a = 0; a < 3; ++a) boxes[r].begin[a] = int(all[6 * r + a]);
    boxes[r].extents = {int(all[6 * r + 3]), int(all[6 * r + 4]), int(all[6 * r + 5])};
  }
  return boxes;
}

std::vector<double> gather_in_global_order(const comm::Ranks& ranks, const std::vector<lbm::OwnedBox>& boxes,
                                           const std::vector<double>& mine) {
  std::vector<double> all = ranks.gather(mine);
  if (!ranks.root() || boxes.empty() || boxes.front().is_slab()) return all;
  std::vector<double> out(all.size());
  std::size_t at = 0;
  for (const lbm::OwnedBox& box : boxes)
    for (index_t k = 0; k < box.size(); ++k) out[std::size_t(box.global_index(k))] = all[at++];
  return out;
}

}  // namespace karman::app
