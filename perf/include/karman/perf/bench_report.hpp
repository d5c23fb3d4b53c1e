#pragma once
/// \file bench_report.hpp
/// How bench results are shown: a fixed-width table for people, JSON for machines.

#include <karman/perf/bench.hpp>
#include <karman/perf/copy_bandwidth.hpp>

#include <string>
#include <vector>

namespace karman::perf {

/// Column titles of the results table, with a trailing newline.
std::string table_header();

/// One row of the results table, with a trailing newline.
std::string table_row(const BenchRecord& record);

/// Every copy kernel's bandwidth, the best marked, and deep_copy for context.
std::string copy_summary(const CopyBandwidth& copy);

/// The records as a JSON array of objects, one per variant, fields in BenchRecord order.
std::string to_json(const std::vector<BenchRecord>& records);

/// Writes to_json(records) to `path`; throws karman::Error when the file cannot be written.
void write_json(const std::string& path, const std::vector<BenchRecord>& records);

}  // namespace karman::perf
