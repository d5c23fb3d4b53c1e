#pragma once
/// \file exchange_stats.hpp
/// What a halo exchanger did on one rank: messages and values per step (Meneghin & Mahmoud Eq. 2
/// and Table III: α = messages, β = values), time spent exchanging, and how much of the
/// messages' flight time ran behind other work (OCC, Meneghin & Mahmoud Fig. 4b). Plain structs
/// with no MPI in them, so every HaloExchanger reports through one interface (halo_plan.hpp);
/// Karman::comm gathers them over ranks and the app writes the JSON.

#include <array>
#include <cstdint>

namespace karman {

/// Neighbours by kind, as the by-kind counters index them: across a face, an edge or a corner of
/// a Cartesian block (NeighbourStep::axes() - 1); a slab's two neighbours are faces.
inline constexpr int neighbour_kinds = 3;

/// Running totals of one rank's exchanges. Values count field values (populations), not bytes,
/// so they compare with Table III. Times are host wall-clock seconds.
struct ExchangeCounters {
  std::int64_t exchanges = 0;                                         ///< completed start()/finish() pairs
  std::int64_t messages_sent = 0;                                     ///< MPI_Isend calls
  std::int64_t values_sent = 0;                                       ///< values in those messages
  std::int64_t messages_received = 0;                                 ///< MPI_Irecv calls
  std::int64_t values_received = 0;                                   ///< values in those messages
  std::array<std::int64_t, neighbour_kinds> messages_sent_by_kind{};  ///< messages_sent to faces, edges, corners
  std::array<std::int64_t, neighbour_kinds> values_sent_by_kind{};    ///< values_sent to faces, edges, corners
  double start_seconds = 0;    ///< inside start(): posting receives, packing, staging copies, posting sends
  double overlap_seconds = 0;  ///< between start() returning and finish() being called: the caller's own work
  double wait_seconds = 0;     ///< inside finish(), blocked in MPI_Waitall
  double finish_seconds = 0;   ///< inside finish() in all: the wait, copies back and unpacking

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
  int neighbours = 0;                     ///< steps with a neighbour (0, 1 or 2 for a slab, up to 26)
  std::int64_t exchanges = 0;             ///< exchanges counted (one per time step for AB and AA)
  double messages_sent_per_step = 0;      ///< α_r: messages sent per exchange
  double values_sent_per_step = 0;        ///< β_r: values sent per exchange
  double messages_received_per_step = 0;  ///< messages received per exchange
  double values_received_per_step = 0;    ///< values received per exchange
  std::array<double, neighbour_kinds> messages_sent_per_step_by_kind{};  ///< α_r split: faces, edges, corners
  std::array<double, neighbour_kinds> values_sent_per_step_by_kind{};    ///< β_r split: faces, edges, corners
  double exchange_seconds = 0;                                           ///< total time inside start() and finish()
  double wait_seconds = 0;                                               ///< total time blocked in MPI_Waitall
  double overlap_seconds = 0;                                            ///< total time between start() and finish()
  double hidden_fraction = 0;                                            ///< ExchangeCounters::hidden_fraction()
};

/// One rank's line from its running totals; per-step figures are per exchange.
inline RankCommStats summarize(const ExchangeCounters& c, int rank, int neighbours) {
  RankCommStats s;
  s.rank = rank;
  s.neighbours = neighbours;
  s.exchanges = c.exchanges;
  if (c.exchanges > 0) {
    const double n = double(c.exchanges);
    s.messages_sent_per_step = double(c.messages_sent) / n;
    s.values_sent_per_step = double(c.values_sent) / n;
    s.messages_received_per_step = double(c.messages_received) / n;
    s.values_received_per_step = double(c.values_received) / n;
    for (int k = 0; k < neighbour_kinds; ++k) {
      s.messages_sent_per_step_by_kind[k] = double(c.messages_sent_by_kind[k]) / n;
      s.values_sent_per_step_by_kind[k] = double(c.values_sent_by_kind[k]) / n;
    }
  }
  s.exchange_seconds = c.exchange_seconds();
  s.wait_seconds = c.wait_seconds;
  s.overlap_seconds = c.overlap_seconds;
  s.hidden_fraction = c.hidden_fraction();
  return s;
}

}  // namespace karman
