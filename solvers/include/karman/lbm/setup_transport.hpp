#pragma once
/// \file setup_transport.hpp
/// The ranks of a SolverSetup and how its halo messages travel, as the comm layer takes them
/// (halo_transport.hpp): what every solver factory hands to slab_and_exchanger or
/// block_and_exchanger.

#include <karman/comm/halo_transport.hpp>
#include <karman/lbm/solver_setup.hpp>

namespace karman::lbm {

/// The transport of `setup`'s run: its rank, ranks, communicator and MPI options.
inline comm::Transport transport_of(const SolverSetup& setup) {
  return {setup.rank, setup.ranks, setup.communicator, setup.gpu_aware, setup.pack_halos};
}

}  // namespace karman::lbm
