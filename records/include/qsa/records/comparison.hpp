#pragma once
// `qsacheck bench compare`: two records matched benchmark by benchmark (docs/bench-records.md).

#include <string>
#include <vector>

#include "qsa/records/record.hpp"

namespace qsa::records {

/// One benchmark of a record: its repetitions' times and its median.
struct BenchmarkTimes {
  std::string key;                  // benchmark_key() of the run name
  std::vector<double> repetitions;  // real time of each repetition (or the single run), ns
  double median_ns = -1;            // of the repetitions, else the "median" aggregate; -1 when neither
  double bytes_per_second = -1;     // median counter, -1 when absent
  double items_per_second = -1;
  std::string error;  // the benchmark's error message when it reported one
};

/// The benchmarks of a record in file order, one per key.
std::vector<BenchmarkTimes> benchmark_times(const Record& record);

struct CompareOptions {
  double alpha = 0.05;      // significance level of the two-sided U test
  double threshold = 0.05;  // a regression is a significant slowdown by more than this fraction
};

enum class Verdict { kRegression, kFaster, kSame, kUntested };
const char* to_string(Verdict verdict);

struct BenchmarkChange {
  std::string key;
  double baseline_ns = 0, candidate_ns = 0;  // medians
  double change = 0;                         // candidate / baseline - 1
  double p_value = -1;                       // -1 when untested (fewer than 2 repetitions)
  int baseline_repetitions = 0, candidate_repetitions = 0;
  Verdict verdict = Verdict::kUntested;
};

struct Comparison {
  std::vector<BenchmarkChange> changes;  // in the baseline's order
  std::vector<std::string> missing;      // in the baseline only (or failed in the candidate)
  std::vector<std::string> added;        // in the candidate only
  std::vector<std::string> warnings;     // environment differences, few repetitions, ...
  double geomean_ratio = 1;              // geometric mean of candidate / baseline over the changes
  int regressions = 0;
};

/// Compares two records. Throws InputError (exit 2) for an imported record (no repetitions:
/// field "baseline"/"candidate", rule "imported-record"), no common benchmark
/// ("no-common-benchmarks"), or no benchmark with 2 repetitions on both sides ("too-few-repetitions").
Comparison compare_records(const Record& baseline, const Record& candidate, const CompareOptions& options);

/// The differences of environment that make a comparison doubtful (GPU, clocks, driver, CUDA,
/// schema version, unknown environment), as warnings.
std::vector<std::string> environment_warnings(const Record& baseline, const Record& candidate);

/// The verdict of one benchmark from its repetitions (shared by compare and the report's history).
BenchmarkChange compare_benchmark(const BenchmarkTimes& baseline, const BenchmarkTimes& candidate,
                                  const CompareOptions& options);

}  // namespace qsa::records
