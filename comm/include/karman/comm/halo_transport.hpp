#pragma once
/// \file halo_transport.hpp
/// How one rank's halos are filled, chosen from the run's ranks alone: MPI messages between
/// ranks (MpiHaloExchanger, the partition and the messages from one Slab- or
/// CartesianDecomposition), a local copy when a lone rank wraps onto itself, or nothing. Code
/// above the comm layer names ranks and boxes here and never asks whether the build has MPI.

#include <karman/comm/ranks.hpp>
#include <karman/core/cartesian/cartesian_partition.hpp>
#include <karman/core/dense/partition.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/periodic_exchange.hpp>

#include <array>
#include <memory>
#include <string>

#if KARMAN_ENABLE_MPI
#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/slab_decomposition.hpp>
#endif

namespace karman::comm {

/// Whether device buffers go to MPI directly (gpu_aware.hpp, MPI builds); declared here so that
/// a transport names it in every build. Value 0 is `automatic`.
enum class GpuAwareMode : int;

/// The ranks of a run and how their messages travel.
struct Transport {
  int rank = 0;              ///< this process's rank; checked against the communicator's
  int ranks = 1;             ///< ranks sharing the box
  Ranks communicator;        ///< the run's ranks (needed when ranks > 1)
  GpuAwareMode gpu_aware{};  ///< device buffers to MPI directly, or staged
  bool pack_halos = false;   ///< one buffer per neighbour whatever the layout (MpiHaloExchanger)
};

/// A rank's part of a box and the exchanger that fills its halos (null: nothing to fill).
template <class Partition, class FieldType>
struct PartitionAndExchanger {
  Partition partition;
  std::unique_ptr<HaloExchanger<FieldType>> exchanger;
};

/// Throws karman::Error when the communicator's numbering (`rank` of `ranks`) is not `run`'s.
inline void check_rank(const Transport& run, int rank, int ranks) {
  if (rank != run.rank || ranks != run.ranks) {
    throw Error("karman: the setup names rank " + std::to_string(run.rank) + " of " + std::to_string(run.ranks) +
                ", its communicator rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  }
}

/// The slab of `box` this rank owns along the slowest axis, and its exchanger: MPI between
/// ranks, the last slab's upper neighbour the first when `periodic`; on one rank a local copy
/// when `periodic` (a lone slab is its own neighbour), else none. MPI's
/// packing and staging run on `space`. Throws karman::Error for several ranks without MPI or
/// without a communicator, or a communicator whose rank or size differ from `run`'s.
template <class FieldType>
PartitionAndExchanger<SlabPartition, FieldType> slab_and_exchanger(const Extents& box, bool periodic,
                                                                   const Transport& run,
                                                                   typename FieldType::execution_space space) {
  if (run.ranks > 1) {
#if KARMAN_ENABLE_MPI
    if (run.communicator.size() == 1) {
      throw Error("karman: " + std::to_string(run.ranks) + " ranks need a communicator");
    }
    const SlabDecomposition decomposition(box, run.communicator.comm(), periodic ? SlabEnds::periodic : SlabEnds::wall);
    check_rank(run, decomposition.rank(), decomposition.ranks());
    return {decomposition.partition(),
            std::make_unique<MpiHaloExchanger<FieldType>>(decomposition, run.gpu_aware, space, run.pack_halos)};
#else
    throw Error("karman: " + std::to_string(run.ranks) + " ranks need a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
  }
  SlabPartition partition(box, run.rank, run.ranks, 1, periodic);
  if (periodic) return {partition, std::make_unique<PeriodicSelfExchanger<FieldType>>()};
  return {partition, nullptr};
}

/// The block of `box` this rank owns on the process grid `dims`, and its MPI exchanger
/// (CartesianDecomposition). One process without a communicator exchanges with itself through
/// MPI_COMM_SELF. Throws karman::Error without MPI (initialised), without a communicator for
/// several ranks, or for a communicator whose rank or size differ from `run`'s.
template <class FieldType>
PartitionAndExchanger<CartesianPartition, FieldType> block_and_exchanger(const Extents& box, std::array<int, 3> dims,
                                                                         std::array<bool, 3> periodic,
                                                                         const Transport& run,
                                                                         typename FieldType::execution_space space) {
#if KARMAN_ENABLE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("karman: Cartesian blocks (--ranks-per-axis) need MPI initialised (MPI_Init)");
  MPI_Comm comm = run.ranks > 1 ? run.communicator.comm() : MPI_COMM_SELF;
  if (comm == MPI_COMM_NULL) throw Error("karman: " + std::to_string(run.ranks) + " ranks need a communicator");
  const CartesianDecomposition decomposition(box, comm, dims, periodic);
  check_rank(run, decomposition.rank(), decomposition.ranks());
  return {decomposition.partition(),
          std::make_unique<MpiHaloExchanger<FieldType>>(decomposition, run.gpu_aware, space, run.pack_halos)};
#else
  (void)box, (void)dims, (void)periodic, (void)run, (void)space;
  throw Error("karman: Cartesian blocks (--ranks-per-axis) need a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
}

}  // namespace karman::comm
