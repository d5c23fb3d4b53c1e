// Minimal Kokkos profiling tool (session 36, docs/performance.md §6.30): total time per
// parallel_for label, the calls of each label split by parity, so the AA odd and even steps
// (which alternate and share a label) come out apart. Not part of the build:
//   g++ -O2 -shared -fPIC -o ktimer.so ktimer.cpp
//   KOKKOS_PROFILE_LIBRARY=$PWD/ktimer.so karman bench ...   (Kokkos 3.4; 4.x: KOKKOS_TOOLS_LIBS)
// The OpenMP backend's parallel_for returns when the kernel has finished, so a label's time is
// its kernels' time. A label's first call is step 0 (the sparse AA odd step).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
struct Entry {
  double total = 0;
  long count = 0;
};
static std::map<std::string, Entry> table;
static std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> open_;
extern "C" void kokkosp_init_library(int, uint64_t, uint32_t, void*) {}
extern "C" void kokkosp_begin_parallel_for(const char* name, uint32_t, uint64_t* id) {
  *id = open_.size();
  open_.push_back({name, std::chrono::steady_clock::now()});
}
extern "C" void kokkosp_end_parallel_for(uint64_t id) {
  auto& o = open_[id];
  static std::map<std::string, long> seen;
  long k = seen[o.first]++;
  auto& e = table[o.first + (k % 2 ? " #odd-call" : " #even-call")];
  e.total += std::chrono::duration<double>(std::chrono::steady_clock::now() - o.second).count();
  e.count++;
  open_.pop_back();
}
extern "C" void kokkosp_finalize_library() {
  for (auto& [k, e] : table)
    if (e.total > 0.01)
      std::fprintf(stderr, "ktimer %10.4f s %6ld x %8.3f ms  %s\n", e.total, e.count, 1e3 * e.total / e.count,
                   k.c_str());
}
