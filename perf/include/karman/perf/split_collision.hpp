#pragma once
/// \file split_collision.hpp
/// Seed 002 §4.4.1 (Chen et al.): split the ACM-MRT collision over two kernel launches so each
/// holds fewer registers, at the price of writing the half-collided state to memory and reading
/// it back. This measures that trade for Karman's central-moment collision (lbm::CM, D3Q27,
/// float) on an n^3 periodic all-fluid box with SoA planes, against the same update fused into
/// one launch; both use the product's collision code (CM::relax_central_moments, then
/// CentralMoments::backward) and the same pull indexing, so only the split differs.
///  - fused: pull 27 populations, rho and u, collide, write 27;
///  - split: kernel 1 pulls, relaxes the central moments and writes them with u (30 values);
///    kernel 2 reads those 30, transforms back and writes the 27 populations.

#include <karman/perf/copy_bandwidth.hpp>

#include <cstddef>
#include <string>

namespace karman::perf {

/// What to run.
struct SplitCollisionOptions {
  int n = 0;                   ///< box edge, at most 512; 0: 256 on GPUs, 96 on CPUs
  int steps = 0;               ///< timed steps per sample; 0: 100 on GPUs, 10 on CPUs
  int warmup = -1;             ///< untimed steps first; negative: steps / 5 (at least 1)
  int repeat = 3;              ///< timed samples per schedule; the median is reported
  std::size_t copy_bytes = 0;  ///< bytes of each copy-reference buffer; 0: one lattice, at least 1 GiB
                               ///< on GPUs and 256 MiB on CPUs
};

/// One schedule's speed.
struct SplitCollisionTiming {
  double seconds = 0;          ///< median sample
  double mlups = 0;            ///< voxel updates per second / 1e6 (median sample)
  int bytes_per_update = 0;    ///< DRAM bytes one voxel update moves at the least
  double bandwidth_gbps = 0;   ///< mlups * bytes_per_update / 1e3
  double percent_of_copy = 0;  ///< of the copy reference
};

/// The measurement and the check that both schedules compute the same populations.
struct SplitCollisionResult {
  int n = 0;
  int steps = 0;
  int warmup = 0;
  int repeat = 0;
  SplitCollisionTiming fused;
  SplitCollisionTiming split;
  double split_over_fused = 0;    ///< split MLUPS / fused MLUPS
  double max_abs_difference = 0;  ///< largest |split - fused| over all populations after check_steps
  bool identical = false;         ///< every population bitwise equal
  int check_steps = 0;            ///< steps both ran from the same state for the check
  double mass_drift = 0;          ///< |mass after - mass before| / mass before, fused, over the check steps
  CopyBandwidth copy;             ///< the reference, same process
  std::string backend, device, kokkos_version, commit;
};

/// Checks `options`; throws karman::Error naming the bad value and the accepted range.
void validate(const SplitCollisionOptions& options);

/// Runs the check and both timings. Throws karman::Error for bad options.
SplitCollisionResult run_split_collision(const SplitCollisionOptions& options);

/// The result as one JSON object (the fields above, the copy reference's figure and kernel).
std::string to_json(const SplitCollisionResult& result);

/// Writes to_json(result) to `path`; throws karman::Error when it cannot.
void write_json(const std::string& path, const SplitCollisionResult& result);

/// A human-readable table of the result.
std::string split_collision_table(const SplitCollisionResult& result);

}  // namespace karman::perf
