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

/// CSoA with the chunk size the default execution space prefers.
using CSoADefault = CSoA<BackendTraits<Kokkos::DefaultExecutionSpace>::csoa_alpha>;

}  // namespace karman
