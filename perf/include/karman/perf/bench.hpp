#pragma once
/// \file bench.hpp
/// `karman bench`: the dense benchmark of every solver variant. Each variant runs a case on an
/// n^3 (or n^2) box — the fully periodic all-fluid box (no flag word, no force: bytes per
/// update = 2 Q sizeof(T)), or a real case with walls: the lid-driven cavity, or the channel
/// between walls with a regularized pressure inlet and outlet, or the periodic box with a
/// simple-cubic array of spheres (circles in 2D) held by immersed-boundary markers, whose MLUPS
/// against the box's give the cost of the markers' work per step — warms up, then times fenced
/// samples of steps; its speed is set against the copy bandwidth measured in the same process
/// (copy_bandwidth.hpp). Every voxel of the box counts as one update, walls included, as the
/// box's do.

#include <karman/perf/copy_bandwidth.hpp>

#include <cstddef>
#include <cstdint>
#include <karman/lbm/lagrangian_markers.hpp>
#include <karman/lbm/variants.hpp>

#include <functional>
#include <string>
#include <vector>

namespace karman::perf {

/// What to run. Each list is swept; every combination is one variant. Zero means "the default
/// for this backend" (default_edge, default_steps).
struct BenchOptions {
  std::vector<std::string> lattices = lbm::Lattices::names();      ///< names of lbm::Lattices
  std::vector<std::string> precisions = lbm::Precisions::names();  ///< names of lbm::Precisions
  std::vector<std::string> layouts = lbm::Layouts::names();        ///< names of lbm::Layouts
  std::vector<std::string> patterns = lbm::Patterns::names();      ///< names of lbm::Patterns
  std::vector<std::string> collisions{"bgk"};                      ///< names of lbm::Collisions
  std::vector<std::string> cases{"box"};                           ///< box | cavity | channel | ib
  std::vector<std::string> schedules{"split"};                     ///< split | fused (cases with walls)
  std::vector<int> tiles{0};  ///< voxels the split schedule classifies together; 0: the solver's default
  std::int64_t markers = 0;   ///< case ib: markers wanted in all; 0: default_markers()
  std::vector<int> marker_blocks{
      lbm::default_marker_block};  ///< case ib: l of the markers' order (ImmersedBody::marker_block), swept
  int n = 0;                       ///< box edge: n x n (2D) or n x n x n (3D); 0: default_edge(lattice)
  int steps = 0;                   ///< timed steps per sample (even: AA alternates two step kinds); 0: default_steps()
  int warmup = -1;                 ///< untimed steps first; negative: steps / 5 (even, at least 2)
  int repeat = 3;                  ///< timed samples per variant; the median is reported
  std::size_t copy_bytes = 0;      ///< bytes of each copy buffer; 0: the largest population storage of the sweep
                                   ///< (at least 1 GiB on GPUs, 256 MiB on CPUs)
};

/// One measured variant (the fields of the JSON record, in order).
struct BenchRecord {
  std::string case_name;                                       ///< box | cavity | channel | ib
  std::string schedule;                                        ///< split | fused
  int tile = 0;                                                ///< schedule tile (0: the solver's default)
  std::string lattice, precision, layout, pattern, collision;  ///< the variant
  int n = 0;                                                   ///< box edge
  std::int64_t voxels = 0;                                     ///< voxels updated per step (n^2 or n^3)
  std::int64_t markers = 0;          ///< case ib: immersed-boundary markers (0 for the other cases)
  int spheres = 0;                   ///< case ib: spheres (circles in 2D) they sit on
  double sphere_radius = 0;          ///< case ib: their radius in voxels
  int marker_block = 0;              ///< case ib: l of the markers' order
  int steps = 0;                     ///< timed steps per sample
  int warmup = 0;                    ///< untimed steps before
  int repeat = 0;                    ///< timed samples
  double seconds = 0;                ///< median sample time
  double mlups = 0;                  ///< million lattice updates per second (median sample)
  double mlups_max = 0;              ///< fastest sample
  std::size_t bytes_per_update = 0;  ///< populations read + written (+ flag word) per voxel update
  double bandwidth_gbps = 0;         ///< mlups * bytes_per_update / 1e3: effective bandwidth
  double copy_bandwidth_gbps = 0;    ///< the copy reference of this run (its fastest Kokkos copy kernel)
  std::string copy_kernel;           ///< which kernel that was
  double deep_copy_gbps = 0;         ///< Kokkos::deep_copy in the same run, for context
  double percent_of_copy = 0;        ///< 100 * bandwidth / copy bandwidth
  double bytes_per_cell = 0;         ///< population storage per stored voxel (2 Q sizeof(T) AB, Q sizeof(T) AA)
  std::size_t population_bytes = 0;  ///< population storage of the whole box, halo planes included
  double mass_drift = 0;             ///< |mass after - mass before| / mass before: the run computed physics
  std::string backend;               ///< Kokkos default execution space
  std::string device;                ///< GPU or CPU model
  int concurrency = 0;               ///< threads (CPU) or resident threads (GPU)
  std::string kokkos_version;        ///< e.g. "4.7.1"
  std::string commit;                ///< Karman commit the build was configured from
};

/// True when the default execution space runs on a GPU.
bool on_gpu();

/// Default box edge of a lattice on this backend: 4096 (D2Q9) / 256 (3D) on GPUs,
/// 2048 / 128 on CPUs (populations well beyond the last-level cache).
int default_edge(const std::string& lattice);

/// Default timed steps per sample: 100 on GPUs, 10 on CPUs.
int default_steps();

/// Default marker count of case ib: 10^6 on GPUs, 10^4 on CPUs.
std::int64_t default_markers();

/// The spheres of case ib on an n^dimension periodic box: k^dimension of them in a simple-cubic
/// array (k the smallest count whose largest spheres, 2 voxels clear of each other's cells, hold
/// `markers`), of the radius whose surfaces at about one marker per voxel^2 (voxel in 2D) hold
/// `markers` in all. Throws karman::Error naming the count and the box when they do not fit.
struct SphereArray {
  int per_axis = 0;   ///< k
  double radius = 0;  ///< voxels
  int markers_per_sphere = 0;
};
SphereArray sphere_array(int n, int dimension, std::int64_t markers);

/// Population bytes one variant allocates at edge n (both lattices for AB, halo planes included).
std::size_t population_bytes(const std::string& lattice, const std::string& precision, const std::string& pattern,
                             int n);

/// The copy buffer size `options` asks for (copy_bytes, or the default described there).
std::size_t copy_buffer_bytes(const BenchOptions& options);

/// Checks `options` (names, sizes, step counts); throws karman::Error naming the bad value
/// and what is accepted.
void validate(const BenchOptions& options);

/// The lattice/precision/layout names of the sweep this build of Karman::lbm does not hold
/// (compiled_variants.hpp; a CPU build's product holds fp16s/fp16c in SoA and CSoA only): the
/// runs pass over them. Throws, naming them, when the sweep holds no compiled variant at all.
std::vector<std::string> uncompiled_variants(const BenchOptions& options);

/// Says on stderr, one line each, that the variants `names` (uncompiled_variants) are passed over.
void report_passed_over(const std::vector<std::string>& names);

/// Measures the copy reference once, then every variant of `options` in turn; calls
/// `on_record` (when set) as each variant finishes. Throws karman::Error for bad options.
std::vector<BenchRecord> run_bench(const BenchOptions& options,
                                   const std::function<void(const BenchRecord&)>& on_record = {});

/// Runs every variant of `options` against an already measured copy reference.
std::vector<BenchRecord> run_bench(const BenchOptions& options, const CopyBandwidth& copy,
                                   const std::function<void(const BenchRecord&)>& on_record = {});

}  // namespace karman::perf
