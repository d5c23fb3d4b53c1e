#pragma once
/// \file comm_stats.hpp
/// What the halo exchange did on each rank: messages and values per step (Meneghin & Mahmoud Eq. 2 and
/// Table III: α = messages, β = values), time spent exchanging, and how much of the messages'
/// flight time ran behind other work (OCC, Meneghin & Mahmoud Fig. 4b). Plain structs: the app writes
/// the JSON.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace karman::comm {

/// Running totals of one rank's exchanges. Values count field values (populations), not bytes,
/// so they compare with Table III. Times are host wall-clock seconds.
struct ExchangeCounters {
  std::int64_t exchanges = 0;          ///< completed start()/finish() pairs
  std::int64_t messages_sent = 0;      ///< MPI_Isend calls
  std::int64_t values_sent = 0;        ///< values in those messages
  std::int64_t messages_received = 0;  ///< MPI_Irecv calls
  std::int64_t values_received = 0;    ///< values in those messages
  double start_seconds = 0;            ///< inside start(): posting receives, packing, staging copies, posting sends
  double overlap_seconds = 0;          ///< between start() returning and finish() being called: the caller's own work
  double wait_seconds = 0;             ///< inside finish(), blocked in MPI_Waitall
  double finish_seconds = 0;           ///< inside finish() in all: the wait, copies back and unpacking

  /// Time this rank spent inside the exchanger, start() plus finish(): what the exchange cost it.
  double exchange_seconds() const { return start_seconds + finish_seconds; }
  /// Share of the messages' flight time that ran behind the caller's work:
  /// overlap / (overlap + wait). 0 when finish() follows start() at once (no overlap), 1 when
  /// every message had arrived by the time finish() was called. Only host time between the
  /// calls counts as overlap, so work the caller launched asynchronously on a GPU counts only
  /// as far as the caller waited for it before calling finish().
  double hidden_fraction() const {
    const double in_flight = overlap_seconds + wait_seconds;
    return in_flight > 0 ? overlap_seconds / in_flight : 0.0;
  }
};

/// One rank's line of the run summary; field names are its JSON keys
/// ("per_rank": [{"rank", "neighbours", "messages_sent_per_step", ...}]).
struct RankCommStats {
  int rank = 0;                           ///< rank in the communicator
  int neighbours = 0;                     ///< sides with a neighbour (0, 1 or 2)
  std::int64_t exchanges = 0;             ///< exchanges counted (one per time step for AB and AA)
  double messages_sent_per_step = 0;      ///< α_r: messages sent per exchange
  double values_sent_per_step = 0;        ///< β_r: values sent per exchange
  double messages_received_per_step = 0;  ///< messages received per exchange
  double values_received_per_step = 0;    ///< values received per exchange
  double exchange_seconds = 0;            ///< total time inside start() and finish()
  double wait_seconds = 0;                ///< total time blocked in MPI_Waitall
  double overlap_seconds = 0;             ///< total time between start() and finish()
  double hidden_fraction = 0;             ///< ExchangeCounters::hidden_fraction()
};

/// The "comm" object of a run summary: every rank's line, gathered on rank 0.
struct CommStats {
  int ranks = 1;                        ///< ranks in the communicator
  std::string layout;                   ///< field layout name ("aos", "soa", "csoa", "disaggregated")
  bool overlap = false;                 ///< interior work overlapped the exchange (OCC)
  bool gpu_aware = false;               ///< device pointers were handed to MPI directly
  std::vector<RankCommStats> per_rank;  ///< one line per rank, in rank order; filled on rank 0 only
};

/// One rank's line from its running totals; per-step figures are per exchange.
RankCommStats summarize(const ExchangeCounters& counters, int rank, int neighbours);

/// Collective: every rank's line, in rank order, on rank 0; empty on the other ranks.
std::vector<RankCommStats> gather_to_root(const RankCommStats& mine, MPI_Comm comm);

/// Collective: the "comm" summary with every rank's line on rank 0 (per_rank empty elsewhere).
CommStats gather_comm_stats(const RankCommStats& mine, MPI_Comm comm, const std::string& layout, bool overlap,
                            bool gpu_aware);

}  // namespace karman::comm
