#pragma once
/// \file scaling_bench.hpp
/// `karman bench --scaling weak|strong` under mpirun: the periodic box of
/// `karman bench`, cut into slabs (or the blocks of a process grid) over the ranks, with the
/// halo exchange overlapped (or not);
/// reports MLUPS per rank and in total, exchange time and how much of it was hidden.

#include <karman/core/extents.hpp>
#include <karman/perf/bench.hpp>

#include <array>
#include <string>
#include <vector>

namespace karman::perf {

/// How the box grows with the rank count.
struct ScalingOptions {
  std::string mode;                ///< "weak": n^3 (n^2) voxels per rank, stacked along z (y); "strong": n^3 in all
  bool overlap = true;             ///< interior work during the exchange
  bool halo_pack = false;          ///< pack halos into one buffer per neighbour (SoA + pack)
  std::string gpu_aware = "auto";  ///< auto | on | off
  std::string ranks_per_axis;      ///< Cartesian process grid "AxBxC" ("AxB" in 2D) or "auto"; empty: slabs
};

/// One rank's share of a measured variant.
struct RankScaling {
  int rank = 0;
  std::int64_t voxels = 0;            ///< owned voxels
  double mlups = 0;                   ///< owned voxels x steps / timed seconds
  double exchange_seconds = 0;        ///< time in the halo exchange (start + finish) over the timed steps
  double hidden_fraction = 0;         ///< share of the messages' flight time behind interior work
  double messages_sent_per_step = 0;  ///< alpha_r
  double values_sent_per_step = 0;    ///< beta_r
};

/// One measured variant at one rank count.
struct ScalingRecord {
  std::string mode, lattice, precision, layout, pattern, collision;
  int n = 0;               ///< edge per rank (weak) or of the whole box (strong)
  int ranks = 1;           ///< MPI ranks
  Extents global;          ///< the whole box
  int steps = 0;           ///< timed steps
  double seconds = 0;      ///< slowest rank's timed seconds
  double mlups_total = 0;  ///< global voxels x steps / seconds
  bool overlap = true, halo_pack = false, gpu_aware = false;
  std::array<int, 3> process_grid{1, 1, 1};  ///< ranks along x, y, z (slabs: 1x1xN, 1xN in 2D)
  std::string backend, device;
  std::vector<RankScaling> per_rank;  ///< every rank's line (rank 0 only)
};

/// Runs every variant of `options` decomposed over MPI_COMM_WORLD (collective); records on
/// rank 0. Throws karman::Error for bad options or a build without MPI.
std::vector<ScalingRecord> run_scaling(const BenchOptions& options, const ScalingOptions& scaling);

/// Writes the records as a JSON array (rank 0).
void write_scaling_json(const std::string& path, const std::vector<ScalingRecord>& records);

}  // namespace karman::perf
