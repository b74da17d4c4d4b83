#pragma once
// The context keys Google Benchmark 1.7.1 writes about the host (num_cpus, mhz_per_cpu,
// cpu_scaling_enabled, caches, load_avg, library_build_type), read from this machine the way
// libbenchmark reads them (sysfs, /proc/cpuinfo, getloadavg), so a record `qsacheck bench` writes
// has every key a consumer of real Google Benchmark files expects (Bencher's cpp_google adapter
// requires `caches`; docs/bench-records.md, "What consumers read").

#include <nlohmann/json.hpp>

namespace qsa::records {

/// This machine's keys; a value that cannot be read is written as libbenchmark writes it then
/// (0 MHz, no caches, scaling false).
nlohmann::json machine_context();

}  // namespace qsa::records
