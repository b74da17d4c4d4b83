#pragma once
// Benchmark records written in the tests: Google Benchmark JSON with every repetition, as
// `--benchmark_repetitions=N --benchmark_out_format=json` writes it, plus our context block.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qsa::records::testing {

struct BuiltBenchmark {
  std::string name;           // run name, e.g. "BM_StepUpdate/cuda/shape:decode/tokens:256/requests:64/dtype:bf16"
  std::vector<double> times;  // microseconds, one per repetition
  double bytes_per_step = 0;  // > 0: a bytes_per_second counter
};

/// Our context block for a measured H200 run (overridable key by key).
nlohmann::json h200_context(const std::map<std::string, std::string>& overrides = {});

/// A record: each benchmark's repetitions, then its mean, median, stddev and cv aggregates.
nlohmann::json build_record(const std::vector<BuiltBenchmark>& benchmarks, const nlohmann::json& context);

/// `n` times around `center` (microseconds) spread uniformly by +-`spread` (a fraction), from a
/// seeded generator (the seed is part of every failure message of the tests that use it).
std::vector<double> noisy_times(double center, double spread, int n, uint64_t seed);

/// Writes text to a fresh file in a fresh temporary directory; returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace qsa::records::testing
