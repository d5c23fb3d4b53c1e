#pragma once
/// \file flow_solver.hpp
/// The runtime face of every compiled solver variant, for applications that choose the
/// variant from user input. Virtual calls happen once per step, never per voxel.

#include <karman/core/exchange_stats.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/lbm/cell_flags.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace karman::lbm {

/// Where a rank's owned voxels lie in the global box: one box of it (a slab's whole planes or a
/// Cartesian block), with the process grid that cut the global box.
struct OwnedBox {
  Extents global;                     ///< the whole box all ranks share
  std::array<int, 3> begin{0, 0, 0};  ///< first owned voxel, global coordinates
  Extents extents;                    ///< owned voxels along x, y, z
  std::array<int, 3> grid{1, 1, 1};   ///< ranks along x, y, z
  index_t local_voxels = 0;           ///< voxels of the rank's local box, halos included

  /// Owned voxels.
  index_t size() const { return extents.size(); }
  /// True when the box is whole planes across the slab axis (what slab-based files store).
  bool is_slab() const {
    return global.slab_axis() == 2 ? extents.nx == global.nx && extents.ny == global.ny : extents.nx == global.nx;
  }
  /// Global index (x fastest over the global box) of owned voxel k in box order (x fastest
  /// over the owned box).
  index_t global_index(index_t k) const {
    return global.index(begin[0] + extents.coordinate(k, 0), begin[1] + extents.coordinate(k, 1),
                        begin[2] + extents.coordinate(k, 2));
  }
};

/// Density and velocity of a rank's owned voxels, in the order of its OwnedBox (x fastest), on
/// the device.
struct MomentFields {
  Kokkos::View<double*> rho;                     ///< density; 0 in walls
  Kokkos::View<double**, Kokkos::LayoutLeft> u;  ///< (voxel, axis) velocity; 0 in walls
};

/// Sum of density over the voxels of `m` (walls hold 0): a rank's share of the total mass.
double total_density(const MomentFields& m);
/// Sum of rho |u|^2 / 2 over the voxels of `m`: a rank's share of the kinetic energy.
double kinetic_energy(const MomentFields& m);

/// What a rank updates: its fluid voxels and, on a block-sparse grid, the blocks they lie in.
/// The voxels it stores, halos included, are OwnedBox::local_voxels.
struct GridCounts {
  index_t fluid_voxels = 0;          ///< owned voxels updated each step: those that are not solid
  std::int64_t blocks = 0;           ///< blocks computed each step; 0 on a dense box
  std::int64_t boundary_blocks = 0;  ///< of those, the ones that run the boundary kernel
};

/// A solver of one compiled variant on one rank's part of a grid: a slab or Cartesian block of the
/// dense box, or block planes of the block-sparse grid.
class FlowSolver {
 public:
  virtual ~FlowSolver() = default;
  /// Advances n time steps.
  virtual void advance(int n) = 0;
  /// Time steps done since initialisation.
  virtual std::int64_t steps() const = 0;
  /// Density and velocity of the owned voxels after the last step (collective under MPI).
  virtual MomentFields moments() = 0;
  /// Sum of density over this rank's owned fluid voxels (collective under MPI); callers that
  /// already hold moments() use total_density() on them instead.
  virtual double local_mass() = 0;
  /// Force on the setup's body during the next step, lattice units; zeros without a body. This
  /// rank's share. A curved wall's by momentum exchange over its cut links (curved_wall.hpp), an
  /// immersed body's as the reaction to the markers' forces (immersed_boundary.hpp; collective).
  virtual std::array<double, 3> body_force() = 0;
  /// Cut links of the curved body on this rank.
  virtual std::size_t wall_links() const = 0;
  /// Lagrangian markers of the immersed body (immersed_boundary.hpp); 0 without one.
  virtual std::size_t immersed_markers() const = 0;
  /// Where this rank's owned voxels lie, and the process grid.
  virtual OwnedBox owned_box() const = 0;
  /// The voxels and blocks this rank updates each step.
  virtual GridCounts grid_counts() const = 0;
  /// Bytes of population storage (two lattices for AB, one for AA).
  virtual std::size_t population_bytes() const = 0;
  /// Bytes moved per voxel update: populations read and written, plus the flag word.
  virtual std::size_t bytes_per_update() const = 0;
  /// Number of populations Q.
  virtual int populations() const = 0;
  /// Human-readable variant, e.g. "d3q19/float/soa/bgk/ab".
  virtual std::string description() const = 0;
  /// Bytes of one stored population: 4 (float) or 8 (double).
  virtual int population_size() const = 0;
  /// True when the populations the next step reads lie in the owned voxels alone, so that
  /// save_populations() captures the whole state: always for AB, after an even number of steps
  /// for AA (after an odd AA step part of them wait in the halo planes).
  virtual bool populations_complete() const = 0;
  /// Copies the populations the next step reads into `out` (owned voxels x Q x population_size()
  /// bytes) in the order (voxel, population): owned voxels in owned_box() order, populations
  /// in lattice order, each as its post-collision value whatever the layout and pattern, so every
  /// layout and both patterns give the same bytes. Throws karman::Error unless
  /// populations_complete().
  virtual void save_populations(std::byte* out) const = 0;
  /// Replaces the populations with `in` in save_populations' order and sets the step count to
  /// `steps` (even for AA). Throws karman::Error for an odd AA step count.
  virtual void load_populations(const std::byte* in, std::int64_t steps) = 0;
  /// Copies the flag word (cell_flags.hpp) of every owned voxel into `out`, in owned_box() order,
  /// for checkpoints. Kind and id depend on the global geometry only; the mask bits also on where the
  /// slab ends (walls at rest served through slots, wall_slots.hpp), never on the layout or pattern.
  virtual void save_flags(flag_t* out) const = 0;
  /// True when halos move between ranks (a decomposed run under MPI).
  virtual bool uses_mpi() const = 0;
  /// This rank's exchange counters so far (zeros but the rank without halos between ranks).
  virtual RankCommStats comm_stats() const = 0;
  /// True when device buffers were handed to MPI directly.
  virtual bool gpu_aware() const = 0;
  /// Forgets the counters (after a warm-up).
  virtual void reset_comm_stats() = 0;
};

}  // namespace karman::lbm
