#pragma once
/// \file layouts.hpp
/// All layout mappings, and the CSoA chunk size each backend prefers.

#include <karman/core/backend_traits.hpp>
#include <karman/core/layout_aos.hpp>
#include <karman/core/layout_csoa.hpp>
#include <karman/core/layout_disaggregated.hpp>
#include <karman/core/layout_soa.hpp>
#include <karman/core/layout_traits.hpp>

namespace karman {

/// CSoA's chunk size: the build's KARMAN_CSOA_ALPHA (cmake -DKARMAN_CSOA_ALPHA=N, what
/// perf/csoa_alpha_sweep.sh varies) or else the one the default execution space prefers.
#if defined(KARMAN_CSOA_ALPHA)
inline constexpr int csoa_alpha = KARMAN_CSOA_ALPHA;
#else
inline constexpr int csoa_alpha = BackendTraits<Kokkos::DefaultExecutionSpace>::csoa_alpha;
#endif

/// CSoA with that chunk size: the layout `csoa` of the solver variants.
using CSoADefault = CSoA<csoa_alpha>;

}  // namespace karman
