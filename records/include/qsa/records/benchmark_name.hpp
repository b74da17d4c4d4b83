#pragma once
// What a benchmark name says: `BM_<Operation>/<backend>/<argname>:<value>/...` (the project's
// benchmark naming: the operation, the backend timed, then its arguments as name:value), followed
// by Google Benchmark's run options (`/iterations:30`, `/repeats:5`, `/min_time:0.100`,
// `/manual_time`, ...), which say how it was timed, not what.

#include <string>
#include <utility>
#include <vector>

namespace qsa::records {

/// The name without Google Benchmark's run options: the identity `compare` matches and `report`
/// draws, so that a record with more repetitions still matches its baseline.
/// "BM_Floor/empty_kernel/iterations:50/repeats:5/manual_time" -> "BM_Floor/empty_kernel".
std::string benchmark_key(const std::string& run_name);

/// A key split into its parts: "BM_StepUpdate/cuda/shape:decode/tokens:256" ->
/// family "BM_StepUpdate", backend "cuda", args {{"shape","decode"},{"tokens","256"}}.
/// Parts without a colon after the first two are kept in args with an empty name.
struct BenchmarkName {
  std::string family;
  std::string backend;  // "" when the second part is absent or is an argument
  std::vector<std::pair<std::string, std::string>> args;

  /// The value of argument `name`, or "" when absent.
  [[nodiscard]] std::string arg(const std::string& name) const;
};

BenchmarkName split_benchmark_name(const std::string& key);

}  // namespace qsa::records
