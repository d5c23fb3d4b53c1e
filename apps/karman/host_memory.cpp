#include "host_memory.hpp"

#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace karman::app {

MemoryLimit smallest_memory_limit(const MemoryReadings& r) {
  MemoryLimit limit;
  const auto consider = [&](double bytes, const char* source) {
    if (bytes > 0 && (limit.bytes == 0 || bytes < limit.bytes)) limit = {bytes, source};
  };
  consider(r.available, "available host memory (MemAvailable)");
  consider(r.cgroup_limit, "the process's cgroup memory limit (memory.max; Slurm's --mem)");
  consider(r.address_space, "the address-space limit (RLIMIT_AS, ulimit -v)");
  return limit;
}

std::vector<std::string> cgroup_limit_files(const std::string& proc_self_cgroup, const std::string& root) {
  std::vector<std::string> files;
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // hierarchy-id:controllers:path; the path itself may hold ':'.
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    std::string base, file;
    if (controllers.empty()) {
      base = root, file = "memory.max";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      base = root + "/memory", file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    // A parent's limit holds for its children too (Slurm limits the job, the step sits below).
    while (true) {
      files.push_back(base + (path == "/" ? "" : path) + "/" + file);
      if (path.empty() || path == "/") break;
      const auto slash = path.rfind('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
  return files;
}

double limit_value(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  // v1 writes "no limit" as the largest page-aligned 63-bit number.
  return end != text.c_str() && value > 0 && value < 0x1p62 ? value : 0;
}

MemoryReadings read_memory_readings() {
  MemoryReadings r;
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") r.available = kib * 1024.0;
  }
  std::stringstream cgroup;
  cgroup << std::ifstream("/proc/self/cgroup").rdbuf();
  for (const std::string& file : cgroup_limit_files(cgroup.str(), "/sys/fs/cgroup")) {
    std::string text;
    std::ifstream(file) >> text;
    const double value = limit_value(text);
    if (value > 0 && (r.cgroup_limit == 0 || value < r.cgroup_limit)) r.cgroup_limit = value;
  }
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) r.address_space = double(limit.rlim_cur);
  return r;
}

double peak_resident_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return double(usage.ru_maxrss) * 1024.0;  // kilobytes on Linux
}

}  // namespace karman::app
