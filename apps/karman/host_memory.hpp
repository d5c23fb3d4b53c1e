#pragma once
/// \file host_memory.hpp
/// How much host memory a run may take: the smallest of what the host has free, the limit of the
/// process's cgroup (Slurm's --mem: past it the kernel kills the run without a word) and its
/// address-space limit (ulimit -v). Readings and choice apart, so that the choice is testable.

#include <string>
#include <vector>

namespace karman::app {

/// What the host and the process's limits say, in bytes; 0: unknown or unlimited.
struct MemoryReadings {
  double available = 0;      ///< MemAvailable of /proc/meminfo
  double cgroup_limit = 0;   ///< the smallest memory.max (v2) or memory.limit_in_bytes (v1) on the cgroup's path
  double address_space = 0;  ///< RLIMIT_AS
};

/// A memory budget and where it comes from, for messages.
struct MemoryLimit {
  double bytes = 0;    ///< 0: nothing known
  std::string source;  ///< e.g. "the cgroup limit (memory.max)"
};

/// The smallest known reading and its name.
MemoryLimit smallest_memory_limit(const MemoryReadings& readings);

/// The memory limit files that apply to this process, from the text of /proc/self/cgroup, the
/// cgroup and each ancestor under `root` (/sys/fs/cgroup): v2 ("0::/path") memory.max, v1
/// ("N:...memory...:/path") memory/.../memory.limit_in_bytes.
std::vector<std::string> cgroup_limit_files(const std::string& proc_self_cgroup, const std::string& root);

/// A limit file's value in bytes; 0 for "max", a v1 "no limit" (2^62 and above) or anything unreadable.
double limit_value(const std::string& text);

/// This process's readings now.
MemoryReadings read_memory_readings();

/// This process's peak resident host memory so far (getrusage's ru_maxrss), in bytes; 0 when the
/// system does not say.
double peak_resident_bytes();

}  // namespace karman::app
