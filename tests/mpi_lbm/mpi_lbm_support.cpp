#include "mpi_lbm_support.hpp"

#include <karman/comm/ranks.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace karman::lbm::test {
namespace {

std::uint64_t bits(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

MpiSolverTest::MpiSolverTest() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
}

void MpiSolverTest::TearDown() {
  const bool failed_here = HasFailure();
  if (comm::Ranks(MPI_COMM_WORLD).any(failed_here) && !failed_here) ADD_FAILURE() << "failed on another rank";
}

GatheredMoments gather_moments(FlowSolver& solver, MPI_Comm comm) {
  const comm::Ranks all(comm);
  const HostMoments mine = host_moments(solver);
  const OwnedBox box = solver.owned_box();
  GatheredMoments out;
  const std::vector<double> rho = all.gather(mine.rho), u = all.gather(mine.u);
  // Six numbers per rank: where its box begins and its extents.
  const std::vector<long long> boxes =
      all.all_gather({box.begin[0], box.begin[1], box.begin[2], box.extents.nx, box.extents.ny, box.extents.nz});
  if (!all.root()) return out;
  const Extents& g = box.global;
  out.fields.rho.assign(std::size_t(g.size()), 0.0);
  out.fields.u.assign(3 * std::size_t(g.size()), 0.0);
  std::vector<int> placed(std::size_t(g.size()), 0);
  std::size_t at = 0;
  for (std::size_t r = 0; r < boxes.size(); r += 6) {
    OwnedBox b = box;
    b.begin = {int(boxes[r]), int(boxes[r + 1]), int(boxes[r + 2])};
    b.extents = {int(boxes[r + 3]), int(boxes[r + 4]), int(boxes[r + 5])};
    out.slab_begin.push_back(b.global_index(0));
    out.slab_voxels.push_back(b.size());
    for (index_t k = 0; k < b.size() && at < rho.size(); ++k, ++at) {
      const auto v = std::size_t(b.global_index(k));
      out.fields.rho[v] = rho[at];
      for (std::size_t d = 0; d < 3; ++d) out.fields.u[3 * v + d] = u[3 * at + d];
      ++placed[v];
    }
  }
  std::ostringstream msg;
  if (at != rho.size()) msg << "the boxes hold " << at << " voxels, the ranks sent " << rho.size() << "; ";
  const auto wrong = std::count_if(placed.begin(), placed.end(), [](int n) { return n != 1; });
  if (wrong > 0) msg << wrong << " of " << g.size() << " voxels are not covered exactly once";
  out.coverage = msg.str();
  return out;
}

std::string slabs_in_global_order(const GatheredMoments& gathered, const Extents& global) {
  std::ostringstream msg;
  std::int64_t next = 0;
  for (std::size_t r = 0; r < gathered.slab_begin.size(); ++r) {
    if (gathered.slab_begin[r] != next) {
      msg << "rank " << r << "'s slab starts at voxel " << gathered.slab_begin[r] << ", expected " << next << "; ";
    }
    next = gathered.slab_begin[r] + gathered.slab_voxels[r];
  }
  if (next != global.size()) msg << "slabs end at voxel " << next << " of " << global.size();
  return msg.str();
}

std::string bitwise_difference(const HostMoments& a, const HostMoments& b, const Extents& global) {
  std::ostringstream msg;
  if (a.rho.size() != b.rho.size() || a.u.size() != b.u.size()) {
    msg << "sizes differ: " << a.rho.size() << " vs " << b.rho.size() << " voxels";
    return msg.str();
  }
  std::size_t differing = 0;
  std::ostringstream first;
  auto compare = [&](double x, double y, std::size_t voxel, const char* name) {
    if (bits(x) == bits(y)) return;
    if (differing++ > 0) return;
    const auto v = index_t(voxel);
    first.precision(17);
    first << name << " at voxel (" << v % global.nx << ", " << v / global.nx % global.ny << ", "
          << v / (index_t(global.nx) * global.ny) << "): " << x << " vs " << y;
  };
  static const char* const axes[3] = {"ux", "uy", "uz"};
  for (std::size_t k = 0; k < a.rho.size(); ++k) {
    compare(a.rho[k], b.rho[k], k, "rho");
    for (std::size_t d = 0; d < 3; ++d) compare(a.u[3 * k + d], b.u[3 * k + d], k, axes[d]);
  }
  if (differing == 0) return {};
  msg << differing << " of " << 4 * a.rho.size() << " values differ; first: " << first.str();
  return msg.str();
}

double max_speed(const HostMoments& m) {
  double s = 0;
  for (double v : m.u) s = std::fmax(s, std::fabs(v));
  return s;
}

}  // namespace karman::lbm::test
