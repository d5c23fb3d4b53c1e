// What a Disaggregated field's group lookup costs a stencil code (issue 55, item 3): a 7-point
// diffusion of a 7-component field on a Cartesian process grid, the halos exchanged every step,
// its sweep timed for SoA, for Disaggregated looking a voxel's group up on every access
// (`f(v, q)`: 63 lookups per voxel, 56 reads and 7 writes) and for Disaggregated resolving
// each touched voxel's span once (`f.span_of(v)`, then `f(span, v, q)`: 7 lookups per voxel).
// The three compute the same sums in the same order, so their final fields must agree bitwise;
// the program says whether they do and exits 1 when they do not. Links Karman::core and
// Karman::comm only, as an outside code would.
#include <karman/comm/comm.hpp>
#include <karman/core/core.hpp>

#include <mpi.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace karman;

namespace {

constexpr int components = 7;

const char* const usage =
    "usage: mpirun -np N karman_stencil_lookup_bench [options]\n"
    "\n"
    "A 7-point diffusion of a %d-component field in double on a Cartesian process grid, with the\n"
    "halo exchange every step; times the stencil sweep (interior and shared voxels, not the\n"
    "exchange) for each variant and checks that their final fields agree bitwise.\n"
    "\n"
    "  --size NXxNYxNZ         global box (default 96x96x96)\n"
    "  --steps S               time steps (default 20)\n"
    "  --ranks-per-axis AxBxC  process grid, product N (default: MPI_Dims_create's)\n"
    "  --variant LIST          comma-separated, of soa, access, span, all (default all):\n"
    "                          soa     SoA, field(v, q)\n"
    "                          access  Disaggregated, field(v, q): a group lookup per access\n"
    "                          span    Disaggregated, span_of(v) once per voxel, field(span, v, q)\n"
    "  --help                  this text\n"
    "\n"
    "One line per variant: sweep seconds (slowest rank), whole step-loop seconds, and MLUPS\n"
    "(million voxel updates per second of sweep, all %d components each). Kokkos options\n"
    "(--kokkos-...) pass through. Exit: 0 done, 1 the fields differ, 2 bad command line or set-up.\n";

struct Options {
  Extents size{96, 96, 96};
  int steps = 20;
  std::array<int, 3> grid{1, 1, 1};  ///< ranks along x, y, z
  bool soa = false, access = false, span = false;
  bool help = false;
};

/// `text` as a positive integer of at most 9 digits, or 0.
int positive(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
  return digits ? std::atoi(text.c_str()) : 0;
}

/// Every option this program takes, for `ranks` ranks; Kokkos' own (--kokkos-...) are left to
/// Kokkos. Throws karman::Error saying what is wrong, the same on every rank.
Options parse(int argc, char** argv, int ranks) {
  Options o;
  std::string grid;
  bool any_variant = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (arg.rfind("--kokkos-", 0) == 0) continue;
    if (arg != "--size" && arg != "--steps" && arg != "--ranks-per-axis" && arg != "--variant")
      throw Error("unknown option '" + arg + "' (--help lists them)");
    if (i + 1 >= argc) throw Error(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--steps") {
      o.steps = positive(value);
      if (o.steps < 1) throw Error("--steps '" + value + "': expected a positive integer");
    } else if (arg == "--ranks-per-axis") {
      grid = value;
    } else if (arg == "--size") {
      int n[3] = {};
      std::size_t at = 0;
      for (int a = 0; a < 3; ++a) {
        const std::size_t end = a < 2 ? value.find('x', at) : value.size();
        n[a] = end == std::string::npos ? 0 : positive(value.substr(at, end - at));
        if (n[a] < 1) throw Error("--size '" + value + "': expected NXxNYxNZ, positive integers, e.g. 96x96x96");
        at = end + 1;
      }
      o.size = Extents{n[0], n[1], n[2]};
    } else {
      any_variant = true;
      std::size_t at = 0;
      while (at <= value.size()) {
        const std::size_t end = value.find(',', at) == std::string::npos ? value.size() : value.find(',', at);
        const std::string v = value.substr(at, end - at);
        if (v != "soa" && v != "access" && v != "span" && v != "all")
          throw Error("--variant '" + v + "': expected soa, access, span or all");
        o.soa = o.soa || v == "soa" || v == "all";
        o.access = o.access || v == "access" || v == "all";
        o.span = o.span || v == "span" || v == "all";
        at = end + 1;
      }
    }
  }
  if (!any_variant) o.soa = o.access = o.span = true;
  o.grid = grid.empty() ? comm::default_process_grid(ranks, 3) : comm::parse_process_grid(grid, ranks, 3);
  return o;
}

/// Exact in double and different on every voxel and component.
KOKKOS_INLINE_FUNCTION double initial(int x, int y, int z, int q) {
  return double((x * 7 + y * 13 + z * 29 + q * 5) % 31) / 8.0;
}

/// One explicit step of every component: out = in + r * (sum of the 6 face neighbours - 6 in).
/// SpanOnce resolves the span of each of the 7 voxels read once, for all its components;
/// otherwise every access finds its voxel's group again (for SoA there is no group to find, and
/// the two forms compile alike). Either way each component's sum runs in one order, so every
/// variant computes the same bits.
template <class F, bool SpanOnce>
struct Diffuse {
  using span_type = typename F::group_span;
  typename F::const_type in;
  F out;
  CartesianTopology topo;
  double r;

  /// The span of `w`'s group, or nothing for a kernel that looks groups up on every access.
  KOKKOS_INLINE_FUNCTION span_type span(index_t w) const {
    if constexpr (SpanOnce) {
      return in.span_of(w);
    } else {
      (void)w;
      return {};
    }
  }
  /// Component q of `w`, through its span or by looking its group up.
  KOKKOS_INLINE_FUNCTION double get(const span_type& s, index_t w, int q) const {
    if constexpr (SpanOnce) {
      return in(s, w, q);
    } else {
      (void)s;
      return in(w, q);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(index_t v) const {
    const CartesianNeighbours<3> nb(v, topo);
    const index_t faces[6] = {nb.at(-1, 0, 0), nb.at(1, 0, 0),  nb.at(0, -1, 0),
                              nb.at(0, 1, 0),  nb.at(0, 0, -1), nb.at(0, 0, 1)};
    const span_type own = span(v);
    double laplacian[components];
    for (int q = 0; q < components; ++q) laplacian[q] = -6.0 * get(own, v, q);
    for (int k = 0; k < 6; ++k) {
      const span_type s = span(faces[k]);
      for (int q = 0; q < components; ++q) laplacian[q] += get(s, faces[k], q);
    }
    for (int q = 0; q < components; ++q) {
      const double value = get(own, v, q) + r * laplacian[q];
      // `out` has the groups and components of `in`, so the same span places v in both.
      if constexpr (SpanOnce) {
        out(own, v, q) = value;
      } else {
        out(v, q) = value;
      }
    }
  }
};

struct Timing {
  double sweep = 0;  ///< seconds in the stencil kernels
  double total = 0;  ///< seconds of the whole step loop, exchanges included
};

/// `steps` steps of Diffuse<F, SpanOnce> on this rank's block: the interior while the halos
/// travel, the shared voxels once they have arrived. Returns the final field and the times
/// (this rank's).
template <class F, bool SpanOnce>
F run(const comm::CartesianDecomposition& dec, int steps, Timing& t) {
  const CartesianPartition& part = dec.partition();
  F a("a", part.groups(), components), b("b", part.groups(), components);
  const auto coords = global_coordinates(part);
  for_each(
      "initial", part.owned(), Kokkos::DefaultExecutionSpace(), KOKKOS_LAMBDA(index_t v) {
        const Kokkos::Array<int, 3> g = coords(v);
        for (int q = 0; q < components; ++q) a(v, q) = initial(g[0], g[1], g[2], q);
      });
  const HaloPlan plan = stencil_halo_plan(part, components, StencilReach::faces);
  comm::MpiHaloExchanger<F> exchanger(dec);
  const CartesianTopology topo = CartesianTopology::of(part);
  const Kokkos::DefaultExecutionSpace space;
  const double r = 0.125;

  Kokkos::fence();
  MPI_Barrier(dec.comm());
  Kokkos::Timer total;
  for (int s = 0; s < steps; ++s) {
    exchanger.start(a, plan);
    Kokkos::Timer sweep;
    for_each("interior", part, part.interior_group(), space, Diffuse<F, SpanOnce>{a, b, topo, r});
    space.fence();  // the sweep's time, not the messages': they travel on until finish()
    t.sweep += sweep.seconds();
    exchanger.finish();
    sweep.reset();
    for (const VoxelRange& shared : shared_ranges(part))
      for_each("shared", shared, space, Diffuse<F, SpanOnce>{a, b, topo, r});
    space.fence();
    t.sweep += sweep.seconds();
    std::swap(a, b);
  }
  t.total = total.seconds();
  return a;
}

/// Owned (voxel, component) pairs where `f` and `ref` (the same groups) differ, bitwise.
template <class F, class Ref>
long long mismatches(const CartesianPartition& part, const F& f, const Ref& ref) {
  auto host = create_mirror_view(f);
  deep_copy(host, f);
  auto ref_host = create_mirror_view(ref);
  deep_copy(ref_host, ref);
  long long bad = 0;
  for (index_t v = part.owned().begin; v < part.owned().end; ++v)
    for (int q = 0; q < components; ++q) bad += host(v, q) != ref_host(v, q);
  return bad;
}

int bench(const Options& o, int rank, int ranks) {
  const std::array<int, 3>& dims = o.grid;
  const comm::CartesianDecomposition dec(o.size, MPI_COMM_WORLD, dims, {true, true, true});  // periodic
  int groups = dec.partition().groups().size();
  MPI_Allreduce(MPI_IN_PLACE, &groups, 1, MPI_INT, MPI_MAX, dec.comm());
  if (rank == 0) {
    std::printf(
        "stencil_lookup_bench: %d ranks (%dx%dx%d), %dx%dx%d voxels, %d components, %d steps, %d groups "
        "per block (most), Disaggregated holds %d\n",
        ranks, dims[0], dims[1], dims[2], o.size.nx, o.size.ny, o.size.nz, components, o.steps, groups,
        Disaggregated::max_groups);
    std::printf("%-22s %10s %10s %10s\n", "variant", "sweep_s", "total_s", "MLUPS");
  }
  const auto report = [&](const char* name, Timing t) {
    double times[2] = {t.sweep, t.total};
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, dec.comm());
    const double updates = double(o.size.nx) * o.size.ny * o.size.nz * o.steps;
    if (rank == 0) std::printf("%-22s %10.3f %10.3f %10.1f\n", name, times[0], times[1], updates / times[0] / 1e6);
    std::fflush(stdout);
  };

  using SoAField = Field<double, SoA>;
  using DisField = Field<double, Disaggregated>;
  std::vector<SoAField> soa;  // final fields, compared at the end
  std::vector<DisField> dis;
  if (o.soa) {
    Timing t;
    soa.push_back(run<SoAField, false>(dec, o.steps, t));
    report("soa", t);
  }
  if (o.access) {
    Timing t;
    dis.push_back(run<DisField, false>(dec, o.steps, t));
    report("disaggregated/access", t);
  }
  if (o.span) {
    Timing t;
    dis.push_back(run<DisField, true>(dec, o.steps, t));
    report("disaggregated/span", t);
  }

  // Each Disaggregated result against SoA's, else against the first Disaggregated one.
  long long bad = 0;
  for (std::size_t i = 0; i < dis.size(); ++i)
    bad += soa.empty() ? (i > 0 ? mismatches(dec.partition(), dis[i], dis[0]) : 0)
                       : mismatches(dec.partition(), dis[i], soa[0]);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, dec.comm());
  if (rank == 0) {
    if (soa.size() + dis.size() < 2)
      std::printf("final fields: one variant run, nothing to compare\n");
    else
      std::printf("final fields: %lld (voxel, component) values differ between variants\n", bad);
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  comm::MpiContext mpi(argc, argv);
  // Our options first, so that --help and a bad option end before Kokkos starts (and prints its
  // own help). Every rank parses the same line, so all leave here together.
  Options options;
  try {
    options = parse(argc, argv, mpi.size());
  } catch (const Error& e) {
    if (mpi.rank() == 0) std::fprintf(stderr, "karman_stencil_lookup_bench: %s\n", e.what());
    return 2;
  }
  if (options.help) {
    if (mpi.rank() == 0) std::printf(usage, components, components);
    return 0;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return bench(options, mpi.rank(), mpi.size());
  } catch (const comm::CollectiveError& e) {
    // A box too thin for the grid: every rank throws here. Any other error ends the program, and
    // MpiContext every rank with it, rather than leave the others waiting.
    if (mpi.rank() == 0) std::fprintf(stderr, "karman_stencil_lookup_bench: %s\n", e.what());
    return 2;
  }
}
