#include "mpi_lbm_support.hpp"

#include <karman/comm/collective_error.hpp>

#include <cmath>
#include <cstring>
#include <sstream>

namespace karman::lbm::test {
namespace {

/// Collective: `local` of every rank concatenated in rank order on rank 0.
std::vector<double> gather_doubles(const std::vector<double>& local, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int count = int(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[std::size_t(r)] = total;
    total += counts[std::size_t(r)];
  }
  std::vector<double> all(rank == 0 ? std::size_t(total) : 0);
  MPI_Gatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
  return all;
}

/// Collective: one value per rank, in rank order, on rank 0.
std::vector<std::int64_t> gather_one(std::int64_t mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<std::int64_t> all(rank == 0 ? std::size_t(size) : 0);
  MPI_Gather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, 0, comm);
  return all;
}

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
  if (comm::any_rank(failed_here, MPI_COMM_WORLD) && !failed_here) ADD_FAILURE() << "failed on another rank";
}

GatheredMoments gather_moments(FlowSolver& solver, MPI_Comm comm) {
  const HostMoments mine = host_moments(solver);
  const SlabPartition& part = solver.partition();
  GatheredMoments out;
  out.fields.rho = gather_doubles(mine.rho, comm);
  out.fields.u = gather_doubles(mine.u, comm);
  out.slab_begin = gather_one(std::int64_t(part.owned_begin()) * part.plane_size(), comm);
  out.slab_voxels = gather_one(std::int64_t(mine.rho.size()), comm);
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
