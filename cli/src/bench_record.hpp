#pragma once
// The record `qsacheck bench` writes (docs/bench-records.md): Google Benchmark JSON with every
// repetition, its aggregates, and our context block (GPU, clocks at start and end, versions,
// backend, command line, the run's floor and copy ceiling).

#include <string>
#include <vector>

#include "qsa/records/record.hpp"
#include "qsa/timing/backend_benchmarks.hpp"
#include "qsa/timing/gpu_environment.hpp"

namespace qsa::cli {

struct BenchRunContext {
  timing::GpuEnvironment gpu;  // read at the start
  int sm_clock_mhz_end = -1, mem_clock_mhz_end = -1;
  std::string backend;       // the backend's full name
  std::string command_line;  // as the user could type it again
};

/// Google Benchmark's run name of a measurement: the name plus the run options.
std::string run_name(const timing::Measurement& m, int repetitions);

/// The record of one run (measured, schema version records::kSchemaVersion).
records::Record bench_record(const std::vector<timing::Measurement>& measurements, int repetitions,
                             const BenchRunContext& context);

/// The median time per launch in microseconds, or -1 when it was not timed.
double median_micros(const timing::Measurement& m);

}  // namespace qsa::cli
