#pragma once
// The entries Google Benchmark writes for one benchmark run with repetitions: one entry per
// repetition (run_type "iteration", repetition_index), then the mean, median, stddev and cv
// aggregates of the times and of every counter. `qsacheck bench` writes its records so.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qsa/records/record.hpp"

namespace qsa::records {

struct Repetitions {
  std::string run_name;                                 // with Google Benchmark's run options, e.g. ".../manual_time"
  std::vector<double> real_time_ns;                     // one per repetition
  std::vector<double> cpu_time_ns;                      // one per repetition
  int64_t iterations = 0;                               // per repetition
  std::map<std::string, std::vector<double>> counters;  // name -> one value per repetition
};

/// The median (the mean of the middle two for an even count; 0 for none).
double median_of(std::vector<double> values);

/// The repetitions then their four aggregates (none for a single repetition).
std::vector<Entry> repetition_entries(const Repetitions& run);

/// The entry Google Benchmark writes for a benchmark that did not run: error_occurred, the message.
Entry error_entry(const std::string& run_name, const std::string& message);

}  // namespace qsa::records
