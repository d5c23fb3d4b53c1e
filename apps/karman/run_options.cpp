#include "run_options.hpp"

namespace karman::app {

void add_run_options(CLI::App& command, RunOptions& o) {
  command.add_option("--lattice", o.variant.lattice, "Velocity set (default: d2q9 in 2D, d3q19 in 3D)")
      ->check(CLI::IsMember({"d2q9", "d3q19", "d3q27"}));
  command.add_option("--precision", o.variant.precision, "Storage and arithmetic precision")
      ->check(CLI::IsMember({"float", "double"}))
      ->capture_default_str();
  command.add_option("--layout", o.variant.layout, "Population memory layout")
      ->check(CLI::IsMember({"aos", "soa", "csoa", "disaggregated"}))
      ->capture_default_str();
  command.add_option("--pattern", o.variant.pattern, "Propagation: ab (two lattices) or aa (one lattice, in place)")
      ->check(CLI::IsMember({"ab", "aa"}))
      ->capture_default_str();
  command.add_option("--collision", o.variant.collision, "Collision operator")
      ->check(CLI::IsMember({"bgk", "trt"}))
      ->capture_default_str();
  auto* steps = command.add_option("--steps", o.steps, "Run exactly S time steps")->check(CLI::PositiveNumber);
  auto* steady =
      command
          .add_option("--until-steady", o.until_steady, "Run until the residual |u(t)-u(t-k)|/|u(t)| falls below TOL")
          ->check(CLI::PositiveNumber);
  steps->excludes(steady);
  command.add_option("--max-steps", o.max_steps, "Step cap for --until-steady")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--check-every", o.check_every, "Steps k between residual checks (default: from the size)")
      ->check(CLI::PositiveNumber);
  command.add_option("--output", o.output, "Output directory")->capture_default_str();
  command.add_option("--output-every", o.output_every, "Write fields every K steps (default: only at the end)")
      ->check(CLI::NonNegativeNumber);
  command.add_option("--overlap", o.overlap, "Overlap the MPI halo exchange with interior work (on|off)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  command.add_option("--mpi-gpu-aware", o.mpi_gpu_aware, "Hand device buffers to MPI directly: auto|on|off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  command.add_flag("--no-fields", o.no_fields, "Write no HDF5 fields (profiles and summary.json only)")
      ->excludes(command.get_option("--output-every"));
  command.add_flag("--halo-pack", o.halo_pack,
                   "Pack each halo transfer into one buffer per neighbour whatever the layout (classical SoA + pack)");
  command.add_flag("--quiet", o.quiet, "No progress lines");
}

}  // namespace karman::app
