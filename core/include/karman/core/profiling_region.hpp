#pragma once
/// \file profiling_region.hpp
/// A Kokkos::Profiling region for the lifetime of a scope, so Kokkos Tools (space-time stack,
/// kernel timers) see each phase, and the region is popped however the scope is left.

#include <Kokkos_Core.hpp>

#include <string>

namespace karman {

/// Pushes a named profiling region on construction and pops it on destruction.
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

}  // namespace karman
