#pragma once
/// \file comm_stats.hpp
/// Every rank's halo-exchange line (core/exchange_stats.hpp) gathered on rank 0 for the run
/// summary. Plain structs: the app writes the JSON.

#include <karman/core/exchange_stats.hpp>

#include <mpi.h>

#include <string>
#include <vector>

namespace karman::comm {

// The per-rank structs live in core, so every HaloExchanger reports them; comm gathers them.
using ::karman::ExchangeCounters;
using ::karman::RankCommStats;
using ::karman::summarize;

/// The "comm" object of a run summary: every rank's line, gathered on rank 0.
struct CommStats {
  int ranks = 1;                        ///< ranks in the communicator
  std::string layout;                   ///< field layout name ("aos", "soa", "csoa", "disaggregated")
  bool overlap = false;                 ///< interior work overlapped the exchange (OCC)
  bool gpu_aware = false;               ///< device pointers were handed to MPI directly
  std::vector<RankCommStats> per_rank;  ///< one line per rank, in rank order; filled on rank 0 only
};

/// Collective: every rank's line, in rank order, on rank 0; empty on the other ranks.
std::vector<RankCommStats> gather_to_root(const RankCommStats& mine, MPI_Comm comm);

/// Collective: the "comm" summary with every rank's line on rank 0 (per_rank empty elsewhere).
CommStats gather_comm_stats(const RankCommStats& mine, MPI_Comm comm, const std::string& layout, bool overlap,
                            bool gpu_aware);

}  // namespace karman::comm
