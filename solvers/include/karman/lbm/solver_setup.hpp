#pragma once
/// \file solver_setup.hpp
/// Everything a solver is built from, as runtime values: the names users type, the geometry
/// and initial state as functions of global voxel coordinates, and the relaxation.

#include <karman/core/extents.hpp>
#include <karman/lbm/cell_flags.hpp>
#include <karman/lbm/collision.hpp>
#include <karman/lbm/curved_wall.hpp>
#include <karman/lbm/immersed_body.hpp>
#include <karman/lbm/update_schedule.hpp>
#include <karman/lbm/variants.hpp>

#include <karman/comm/ranks.hpp>

#include <array>
#include <functional>
#include <string>

namespace karman::comm {
/// Whether device buffers go to MPI directly (karman/comm/gpu_aware.hpp, MPI builds); declared
/// here so that a setup names it in every build. Value 0 is `automatic`.
enum class GpuAwareMode : int;
}  // namespace karman::comm

namespace karman::lbm {

/// Kind and boundary id of one voxel of the global box.
struct CellSpec {
  CellKind kind = CellKind::fluid;  ///< what the voxel is
  int id = 0;                       ///< index into the BoundaryTable
};

/// Density and velocity of one voxel.
struct FlowState {
  double rho = 1.0;
  double u[3] = {0, 0, 0};
};

/// A body whose surface cuts lattice links off the half-way points (curved_wall.hpp): its
/// solid voxels carry boundary id `id`, and `fraction` tells where its surface crosses a link.
struct CurvedWall {
  int id = -1;  ///< boundary id of the body's solid voxels; -1: no curved body
  WallInterpolation interpolation = WallInterpolation::linear;
  /// q in (0, 1]: the fraction of the link from fluid voxel (x, y, z) to its neighbour
  /// (x + cx, y + cy, z + cz), a solid voxel of the body, at which the surface lies.
  std::function<double(int x, int y, int z, int cx, int cy, int cz)> fraction;
};

/// The compile-time variant, named at run time: each name is checked against the registry
/// (variants.hpp) when it is set, so an unknown one never reaches the solver factory.
struct Variant {
  LatticeChoice lattice = "d2q9";        ///< d2q9 | d3q19 | d3q27
  PrecisionChoice precision = "double";  ///< float | double | fp16s | fp16c
  LayoutChoice layout = "soa";           ///< aos | soa | csoa | disaggregated
  CollisionChoice collision = "bgk";     ///< bgk | trt | mrt (d2q9, d3q19) | cm (d2q9, d3q27)
  PatternChoice pattern = "ab";          ///< ab | aa
};

/// Voxels the update schedule classifies together when a case does not say, for populations of
/// `value_bytes` bytes on a backend whose tiles span `tile_bytes` of a population
/// (BackendTraits::schedule_tile_bytes: a sector on GPUs, measured on the H100 in
/// docs/performance.md §5; one voxel on CPUs).
int default_schedule_tile(int value_bytes, int tile_bytes);

/// A case for the solver.
struct SolverSetup {
  Variant variant;
  Extents global;                  ///< whole box, walls included
  std::array<bool, 3> periodic{};  ///< periodic along x, y, z
  /// Voxel kinds; empty means all fluid (then no flag field is stored or read).
  std::function<CellSpec(int x, int y, int z)> geometry;
  BoundaryTable boundaries{};                             ///< wall velocities, inlet/outlet values
  CurvedWall curved_wall;                                 ///< a body with interpolated bounce-back
  std::function<FlowState(int x, int y, int z)> initial;  ///< empty: rest at rho = 1
  RelaxationParams relaxation{};
  /// Body force density of each voxel (global coordinates), in place of relaxation.force; with it,
  /// or with an immersed body, the kernels read the force per voxel (Features::force_field,
  /// compiled for the AB pattern and the BGK and TRT collisions).
  std::function<std::array<double, 3>(int x, int y, int z)> force_field;
  /// A rigid body held by immersed boundaries (immersed_boundary.hpp); slabs only under MPI.
  ImmersedBody immersed_body;
  int rank = 0;   ///< this rank's slab or block
  int ranks = 1;  ///< number of slabs or blocks
  /// Ranks along x, y, z of a Cartesian block decomposition (--ranks-per-axis; product = ranks,
  /// z = 1 in 2D); zeros: slabs along the slowest axis.
  std::array<int, 3> process_grid{0, 0, 0};
  bool overlap = true;                  ///< interior/shared split around the halo exchange
  Schedule schedule = Schedule::split;  ///< bulk/boundary kernels apart or one flagged kernel
  int schedule_tile = 0;  ///< voxels classified together (update_schedule.hpp); 0: default_schedule_tile()
  /// The ranks sharing the box (comm::Ranks of the run's communicator when ranks > 1); one
  /// process by default, which needs no MPI halos.
  comm::Ranks communicator;
  /// Whether device buffers go to MPI directly (--mpi-gpu-aware auto|on|off); zero: automatic.
  comm::GpuAwareMode gpu_aware{};
  /// Pack every halo transfer into one buffer per neighbour whatever the layout (--halo-pack).
  bool pack_halos = false;
};

}  // namespace karman::lbm
