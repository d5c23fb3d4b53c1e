// The host memory budget (issue 51): the smallest of free memory, the cgroup limit and RLIMIT_AS,
// named; the cgroup's limit files found for v1 and v2 hierarchies, ancestors included.
#include <host_memory.hpp>

#include <gtest/gtest.h>

using karman::app::MemoryReadings;

TEST(HostMemory, SmallestReadingWinsAndIsNamed) {
  const double gib = 1073741824.0;
  const struct {
    MemoryReadings readings;
    double bytes;
    const char* source_word;
  } cases[] = {
      {{64 * gib, 1 * gib, 0}, 1 * gib, "cgroup"},  // Slurm --mem=1G on a large node
      {{64 * gib, 0, 0}, 64 * gib, "MemAvailable"},
      {{64 * gib, 8 * gib, 2 * gib}, 2 * gib, "RLIMIT_AS"},
      {{4 * gib, 8 * gib, 16 * gib}, 4 * gib, "MemAvailable"},
      {{0, 0, 3 * gib}, 3 * gib, "RLIMIT_AS"},
      {{0, 0, 0}, 0, ""},
  };
  for (const auto& c : cases) {
    const auto limit = karman::app::smallest_memory_limit(c.readings);
    EXPECT_EQ(limit.bytes, c.bytes);
    EXPECT_NE(limit.source.find(c.source_word), std::string::npos) << limit.source;
  }
}

TEST(HostMemory, CgroupLimitFilesV2AndV1WithAncestors) {
  EXPECT_EQ(
      karman::app::cgroup_limit_files("0::/slurm/job_7/step_0\n", "/sys/fs/cgroup"),
      (std::vector<std::string>{"/sys/fs/cgroup/slurm/job_7/step_0/memory.max", "/sys/fs/cgroup/slurm/job_7/memory.max",
                                "/sys/fs/cgroup/slurm/memory.max", "/sys/fs/cgroup/memory.max"}));
  EXPECT_EQ(karman::app::cgroup_limit_files("5:cpu,cpuacct:/a\n4:memory:/job\n0::/\n", "/c"),
            (std::vector<std::string>{"/c/memory/job/memory.limit_in_bytes", "/c/memory/memory.limit_in_bytes",
                                      "/c/memory.max"}));
  EXPECT_TRUE(karman::app::cgroup_limit_files("3:cpuset:/\n", "/c").empty());
}

TEST(HostMemory, LimitValues) {
  EXPECT_EQ(karman::app::limit_value("1073741824"), 1073741824.0);
  EXPECT_EQ(karman::app::limit_value("max"), 0.0);
  EXPECT_EQ(karman::app::limit_value("9223372036854771712"), 0.0);  // v1: no limit
  EXPECT_EQ(karman::app::limit_value(""), 0.0);
}
