#include "run_options.hpp"

#include <karman/core/error.hpp>
#include <karman/lbm/variants.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace karman::app {
namespace {

/// A readable number: integers as integers, others with six significant digits.
std::string readable(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

/// Whole numbers from `lo` up to the largest `long` (what the options are held in), parsed
/// exactly: a value past that range is refused with the value and the range, never saturated or
/// rounded (sscanf's %ld made 99999999999999999999 the largest long). The message is one a person
/// can read (CLI11's PositiveNumber prints its upper bound, the largest double, with 309 digits).
CLI::Validator integer_at_least(long lo) {
  return CLI::Validator(
      [lo](std::string& input) -> std::string {
        const char* end = input.data() + input.size();
        const std::string most = std::to_string(std::numeric_limits<long>::max());
        long value = 0;
        const auto [stop, error] = std::from_chars(input.data(), end, value);
        if (error == std::errc::result_out_of_range && stop == end) {
          return input + " out of range: from " + std::to_string(lo) + " to " + most;
        }
        if (error != std::errc() || stop != end) {
          // 1e20 is a whole number too, but none a long holds: say which limit it passes.
          double real = 0;
          const auto [real_stop, real_error] = std::from_chars(input.data(), end, real);
          if (real_error == std::errc() && real_stop == end && std::fabs(real) >= 0x1p63) {
            return input + " out of range: from " + std::to_string(lo) + " to " + most;
          }
          return "'" + input + "' is not a whole number";
        }
        if (value < lo) return input + " out of range: at least " + std::to_string(lo);
        return {};
      },
      lo == 1 ? "INT>0" : "INT>=" + std::to_string(lo));
}

/// Finite numbers above `lo` (or from `lo` when `inclusive`); rejects nan and inf.
CLI::Validator finite_above(double lo, bool inclusive) {
  return CLI::Validator(
      [lo, inclusive](std::string& input) -> std::string {
        double value = 0;
        char rest = 0;
        if (std::sscanf(input.c_str(), "%lf%c", &value, &rest) != 1) return "'" + input + "' is not a number";
        if (!std::isfinite(value)) return input + " is not a finite number";
        if (inclusive ? value < lo : value <= lo) {
          return input + " out of range: must be " + (inclusive ? ">= " : "> ") + readable(lo);
        }
        return {};
      },
      inclusive ? "NUM>=" + readable(lo) : "NUM>" + readable(lo));
}

}  // namespace

CLI::Validator positive_integer() { return integer_at_least(1); }
CLI::Validator positive_finite() { return finite_above(0, false); }
CLI::Validator non_negative_finite() { return finite_above(0, true); }
CLI::Validator relaxation_rate() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        double value = 0;
        char rest = 0;
        if (std::sscanf(input.c_str(), "%lf%c", &value, &rest) != 1) return "'" + input + "' is not a number";
        // A rate of 2 or more makes the moment grow each step; 0 freezes it.
        if (!(value > 0 && value < 2)) return input + " out of range (0, 2)";
        return {};
      },
      "RATE in (0,2)");
}

void add_run_options(CLI::App& command, RunOptions& o) {
  command.add_option("--lattice", o.variant.lattice, "Velocity set (default: d2q9 in 2D, d3q19 in 3D)")
      ->check(CLI::IsMember(lbm::Lattices::names()));
  command.add_option("--precision", o.variant.precision, "Storage and arithmetic precision")
      ->check(CLI::IsMember(lbm::Precisions::names()))
      ->capture_default_str();
  command.add_option("--layout", o.variant.layout, "Population memory layout")
      ->check(CLI::IsMember(lbm::Layouts::names()))
      ->capture_default_str();
  command.add_option("--pattern", o.variant.pattern, "Propagation: ab (two lattices) or aa (one lattice, in place)")
      ->check(CLI::IsMember(lbm::Patterns::names()))
      ->capture_default_str();
  command
      .add_option("--collision", o.variant.collision,
                  "Collision operator: bgk, trt (any lattice), mrt (raw moments: d2q9, d3q19), cm (central moments: "
                  "d2q9, d3q27)")
      ->check(CLI::IsMember(lbm::Collisions::names()))
      ->capture_default_str();
  command
      .add_option("--bulk-rate", o.bulk_rate,
                  "mrt, cm: relaxation rate of the trace of the second-order moments (bulk viscosity); the shear "
                  "rate follows from --re")
      ->check(relaxation_rate())
      ->capture_default_str();
  command
      .add_option("--high-order-rate", o.high_order_rate,
                  "mrt, cm: relaxation rate of every moment of order three and higher (1: relax them to equilibrium)")
      ->check(relaxation_rate())
      ->capture_default_str();
  auto* steps = command.add_option("--steps", o.steps, "Run exactly S time steps")->check(positive_integer());
  auto* steady =
      command
          .add_option("--until-steady", o.until_steady, "Run until the residual |u(t)-u(t-k)|/|u(t)| falls below TOL")
          ->check(positive_finite());
  steps->excludes(steady);
  command
      .add_option("--max-steps", o.max_steps,
                  "Step cap for --until-steady; reaching it unconverged exits with code 4 (fields still written)")
      ->check(positive_integer())
      ->capture_default_str();
  command
      .add_option("--check-every", o.check_every,
                  "Steps k between residual and divergence checks (default: from the size)")
      ->check(positive_integer());
  command.add_option("--output", o.output, "Output directory")->capture_default_str();
  command.add_option("--output-every", o.output_every, "Write fields every K steps (default: only at the end)")
      ->check(integer_at_least(0));
  command.add_option("--overlap", o.overlap, "Overlap the MPI halo exchange with interior work (on|off)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  command.add_option("--ranks-per-axis", o.ranks_per_axis,
                     "MPI: cut the box into Cartesian blocks, AxBxC ranks along x, y, z (2D: AxB; the product is the "
                     "rank count), or auto (MPI_Dims_create); default: slabs along the slowest axis (docs/scaling.md)");
  command.add_option("--mpi-gpu-aware", o.mpi_gpu_aware, "Hand device buffers to MPI directly: auto|on|off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  command.add_flag("--no-fields", o.no_fields, "Write no HDF5 fields (profiles and summary.json only)")
      ->excludes(command.get_option("--output-every"));
  command.add_flag("--halo-pack", o.halo_pack,
                   "Pack each halo transfer into one buffer per neighbour whatever the layout (classical SoA + pack)");
  command
      .add_option("--schedule", o.schedule,
                  "Walls and inlets: split (bulk voxels by the periodic-box kernel, boundary voxels by their own) or "
                  "fused (one kernel reading every voxel's flags)")
      ->check(CLI::IsMember({"split", "fused"}))
      ->capture_default_str();
  command.add_flag("--quiet", o.quiet, "No progress lines");
  command
      .add_option("--checkpoint-every", o.checkpoint_every,
                  "Write a checkpoint every K steps into OUTPUT/checkpoints (the newest two are kept; AA: K even)")
      ->check(positive_integer());
  command
      .add_option("--checkpoint-interval", o.checkpoint_interval,
                  "Write a checkpoint every SECONDS of run time (at the next step, even for AA)")
      ->check(positive_finite());
  command.add_option("--restart", o.restart,
                     "Continue from a checkpoint: OUTPUT/checkpoints/step_* directory, or 'latest' in --output");
  command.add_flag("--force", o.force, "With --restart: accept changed physical parameters (--re, collision, ...)");
  command.add_flag("--overwrite", o.overwrite, "Replace an earlier run's files in the output directory");
  command
      .add_option("--inject-nan", o.inject_nan,
                  "Testing aid: put NaN into the populations of the box's centre voxel after step S, to see the "
                  "divergence check stop the run")
      ->check(integer_at_least(0));
}

void validate_run_options(const RunOptions& o) {
  if (o.steps == 0 && o.until_steady == 0) throw Error("give --steps S or --until-steady TOL");
  if (o.variant.pattern == "aa" && o.checkpoint_every % 2 != 0) {
    throw Error("--checkpoint-every " + std::to_string(o.checkpoint_every) +
                " with --pattern aa: AA populations are complete only after an even number of steps; give an "
                "even K");
  }
  if (o.variant.pattern == "aa" && o.inject_nan > 0 && o.inject_nan % 2 != 0) {
    throw Error("--inject-nan " + std::to_string(o.inject_nan) + " with --pattern aa: give an even step");
  }
  if (!lbm::collision_has_moment_rates(o.variant.collision.name()) &&
      (o.bulk_rate != 1.0 || o.high_order_rate != 1.0)) {
    throw Error("--bulk-rate and --high-order-rate apply to --collision mrt or cm, not " + o.variant.collision.name());
  }
  if (o.force && o.restart.empty()) throw Error("--force only applies with --restart");
  if (o.overwrite && !o.restart.empty()) {
    throw Error("--overwrite and --restart contradict each other: a restart keeps the output directory's files");
  }
}

}  // namespace karman::app
