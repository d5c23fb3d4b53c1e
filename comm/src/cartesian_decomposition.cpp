#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>

#include <algorithm>
#include <cstddef>

namespace karman::comm {

namespace {
/// This rank's block; Ranks::run makes a failure on any rank an error on all of them.
CartesianPartition partition_over(const Extents& global, MPI_Comm comm, const std::array<int, 3>& dims,
                                  const std::array<bool, 3>& periodic) {
  const Ranks ranks(comm);
  return ranks.run([&] {
    const int product = dims[0] * dims[1] * dims[2];
    if (product != ranks.size()) {
      throw Error("karman::comm::CartesianDecomposition: a " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                  "x" + std::to_string(dims[2]) + " process grid holds " + std::to_string(product) +
                  " ranks, the run has " + std::to_string(ranks.size()));
    }
    const int r = ranks.rank();
    return CartesianPartition(global, dims, {r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1])}, 1, periodic);
  });
}
}  // namespace

std::array<int, 3> default_process_grid(int ranks, int dimension) {
  int d[3] = {0, 0, 0};
  const int n = dimension == 2 ? 2 : 3;
  MPI_Dims_create(ranks, n, d);
  // MPI_Dims_create lists factors largest first; the slowest axis (z in 3D, y in 2D) takes the largest.
  std::array<int, 3> dims{1, 1, 1};
  for (int a = 0; a < n; ++a) dims[std::size_t(a)] = d[n - 1 - a];
  return dims;
}

std::array<int, 3> parse_process_grid(const std::string& text, int ranks, int dimension) {
  const std::string form = dimension == 2 ? "AxB" : "AxBxC";
  const auto bad = [&](const std::string& why) {
    return Error("--ranks-per-axis " + text + ": " + why + "; accepted: " + form +
                 " with counts of at least 1 whose product is the number of ranks (" + std::to_string(ranks) + ")");
  };
  std::array<int, 3> dims{1, 1, 1};
  std::size_t at = 0;
  const int n = dimension == 2 ? 2 : 3;
  for (int a = 0; a < n; ++a) {
    std::size_t end = a + 1 < n ? text.find('x', at) : text.size();
    if (end == std::string::npos) throw bad("expected " + std::to_string(n) + " counts");
    const std::string part = text.substr(at, end - at);
    if (part.empty() || part.size() > 6 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw bad("'" + part + "' is not a count");
    dims[std::size_t(a)] = std::stoi(part);
    if (dims[std::size_t(a)] < 1) throw bad("a count of " + part);
    at = end + 1;
  }
  if (dims[0] * dims[1] * dims[2] != ranks)
    throw bad("product " + std::to_string(dims[0] * dims[1] * dims[2]) + " is not " + std::to_string(ranks));
  return dims;
}

CartesianDecomposition::CartesianDecomposition(const Extents& global, MPI_Comm comm, std::array<int, 3> dims,
                                               std::array<bool, 3> periodic)
    : m_partition(partition_over(global, comm, dims, periodic)), m_comm(comm) {}

int CartesianDecomposition::neighbour(NeighbourStep step) const {
  if (!m_partition.has_groups(step) || m_partition.closed(step)) return MPI_PROC_NULL;
  std::array<int, 3> at = m_partition.coords();
  for (int a = 0; a < 3; ++a) {
    const int n = m_partition.dims()[std::size_t(a)];
    at[std::size_t(a)] = (at[std::size_t(a)] + step.d[std::size_t(a)] + n) % n;
  }
  return m_partition.rank_of(at);
}

int CartesianDecomposition::neighbours() const {
  int count = 0;
  for (const NeighbourStep& s : m_partition.steps()) count += int(has_neighbour(s));
  return count;
}

}  // namespace karman::comm
