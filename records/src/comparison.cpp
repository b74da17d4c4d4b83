#include "qsa/records/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "qsa/records/benchmark_name.hpp"
#include "qsa/records/mann_whitney.hpp"
#include "qsa/records/repetitions.hpp"
#include "qsa/input_error.hpp"

namespace qsa::records {
namespace {

// Google Benchmark's compare.py warns below 9 repetitions: the U test has little power there.
constexpr int kRecommendedRepetitions = 9;

double counter_or(const Entry& entry, const char* name, double fallback) {
  const auto it = entry.counters.find(name);
  return it == entry.counters.end() ? fallback : it->second;
}

// Relative difference of two clock readings beyond which the records warn.
constexpr double kClockTolerance = 0.05;

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSame:
      return "same";
    case Verdict::kUntested:
      return "untested";
  }
  return "?";
}

std::vector<BenchmarkTimes> benchmark_times(const Record& record) {
  std::vector<BenchmarkTimes> result;
  std::map<std::string, size_t> at;
  std::map<std::string, std::vector<double>> bytes, items;
  for (const Entry& entry : record.entries) {
    const std::string key = benchmark_key(entry.run_name);
    auto [it, added] = at.emplace(key, result.size());
    if (added) result.push_back(BenchmarkTimes{key, {}, -1, -1, -1, ""});
    BenchmarkTimes& b = result[it->second];
    if (entry.error) {
      b.error = entry.error_message.empty() ? "error" : entry.error_message;
      continue;
    }
    if (!entry.aggregate) {
      b.repetitions.push_back(entry.real_time_ns);
      bytes[key].push_back(counter_or(entry, "bytes_per_second", -1));
      items[key].push_back(counter_or(entry, "items_per_second", -1));
    } else if (entry.aggregate_name == "median") {
      b.median_ns = entry.real_time_ns;
      b.bytes_per_second = counter_or(entry, "bytes_per_second", -1);
      b.items_per_second = counter_or(entry, "items_per_second", -1);
    }
  }
  for (BenchmarkTimes& b : result) {
    if (b.repetitions.empty()) continue;
    b.median_ns = median_of(b.repetitions);
    b.bytes_per_second = median_of(bytes[b.key]);
    b.items_per_second = median_of(items[b.key]);
  }
  return result;
}

BenchmarkChange compare_benchmark(const BenchmarkTimes& baseline, const BenchmarkTimes& candidate,
                                  const CompareOptions& options) {
  BenchmarkChange c;
  c.key = baseline.key;
  c.baseline_ns = baseline.median_ns;
  c.candidate_ns = candidate.median_ns;
  c.change = baseline.median_ns > 0 ? candidate.median_ns / baseline.median_ns - 1 : 0;
  c.baseline_repetitions = static_cast<int>(baseline.repetitions.size());
  c.candidate_repetitions = static_cast<int>(candidate.repetitions.size());
  if (c.baseline_repetitions < 2 || c.candidate_repetitions < 2) return c;
  c.p_value = mann_whitney_u(baseline.repetitions, candidate.repetitions).p_value;
  if (c.p_value < options.alpha && c.change > options.threshold)
    c.verdict = Verdict::kRegression;
  else if (c.p_value < options.alpha && c.change < -options.threshold)
    c.verdict = Verdict::kFaster;
  else
    c.verdict = Verdict::kSame;
  return c;
}

std::vector<std::string> environment_warnings(const Record& baseline, const Record& candidate) {
  std::vector<std::string> warnings;
  for (const Record* r : {&baseline, &candidate})
    if (r->schema_version == 0)
      warnings.push_back(r->source +
                         " is plain Google Benchmark JSON: unknown environment (no GPU, clocks or driver recorded)");
  if (baseline.schema_version != 0 && candidate.schema_version != 0 &&
      baseline.schema_version != candidate.schema_version)
    warnings.push_back("record schema versions differ: " + std::to_string(baseline.schema_version) + " vs " +
                       std::to_string(candidate.schema_version));
  if (baseline.schema_version == 0 || candidate.schema_version == 0) return warnings;
  for (const char* key : {"gpu_name", "gpu_sm_count", "gpu_driver", "cuda_version"}) {
    const std::string a = baseline.context_text(key), b = candidate.context_text(key);
    if (a != b) warnings.push_back(std::string(key) + " differs: \"" + a + "\" vs \"" + b + "\"");
  }
  // Clocks read at the end of the timing (under load) and memory clocks; an idle GPU's clock at
  // the start says little.
  for (const char* key : {"gpu_sm_clock_mhz_end", "gpu_mem_clock_mhz_start", "gpu_mem_clock_mhz_end"}) {
    const std::string a = baseline.context_text(key), b = candidate.context_text(key);
    if (a.empty() && b.empty()) continue;
    const double x = std::atof(a.c_str()), y = std::atof(b.c_str());
    if (a.empty() || b.empty() || std::fabs(x - y) > kClockTolerance * std::max(x, y))
      warnings.push_back(std::string(key) + " differs: \"" + a + "\" vs \"" + b + "\" MHz");
  }
  return warnings;
}

Comparison compare_records(const Record& baseline, const Record& candidate, const CompareOptions& options) {
  const std::pair<const Record*, const char*> roles[] = {{&baseline, "baseline"}, {&candidate, "candidate"}};
  for (const auto& [record, role] : roles)
    if (record->provenance == Provenance::kImported)
      throw InputError(Error{role, -1, "imported-record",
                                     record->source +
                                         " is imported from a text log: it holds aggregates, not repetitions, so "
                                         "no U test can use it; compare records measured by `qsacheck bench`"});
  Comparison result;
  result.warnings = environment_warnings(baseline, candidate);
  const std::vector<BenchmarkTimes> base = benchmark_times(baseline), cand = benchmark_times(candidate);
  std::map<std::string, const BenchmarkTimes*> by_key;
  for (const BenchmarkTimes& b : cand) by_key[b.key] = &b;
  double log_sum = 0;
  int tested = 0, few = 0;
  for (const BenchmarkTimes& b : base) {
    const auto it = by_key.find(b.key);
    if (b.error.empty() && it != by_key.end() && !it->second->error.empty())
      result.warnings.push_back(b.key + " failed in the candidate: " + it->second->error);
    if (!b.error.empty() || it == by_key.end() || !it->second->error.empty() || b.median_ns <= 0 ||
        it->second->median_ns <= 0) {
      if (b.error.empty()) result.missing.push_back(b.key);
      continue;
    }
    BenchmarkChange c = compare_benchmark(b, *it->second, options);
    if (c.verdict != Verdict::kUntested) ++tested;
    if (c.verdict != Verdict::kUntested &&
        std::min(c.baseline_repetitions, c.candidate_repetitions) < kRecommendedRepetitions)
      ++few;
    if (c.verdict == Verdict::kRegression) ++result.regressions;
    log_sum += std::log(c.candidate_ns / c.baseline_ns);
    result.changes.push_back(c);
  }
  std::map<std::string, bool> in_base;
  for (const BenchmarkTimes& b : base) in_base[b.key] = true;
  for (const BenchmarkTimes& b : cand)
    if (!in_base.count(b.key)) result.added.push_back(b.key);
  if (result.changes.empty())
    throw InputError(Error{"candidate", -1, "no-common-benchmarks",
                                   "no benchmark of " + baseline.source + " has a time in " + candidate.source});
  if (tested == 0)
    throw InputError(Error{"candidate", -1, "too-few-repetitions",
                                   "no common benchmark has 2 or more repetitions in both records, so no U test "
                                   "can run; record with --benchmark_repetitions=9 or more"});
  const int untested = static_cast<int>(result.changes.size()) - tested;
  if (untested > 0)
    result.warnings.push_back(std::to_string(untested) +
                              " benchmark(s) have fewer than 2 repetitions in a record: listed as untested");
  if (few > 0)
    result.warnings.push_back(std::to_string(few) + " benchmark(s) have fewer than " +
                              std::to_string(kRecommendedRepetitions) +
                              " repetitions: the U test can miss real changes (9 or more recommended)");
  result.geomean_ratio = std::exp(log_sum / static_cast<double>(result.changes.size()));
  return result;
}

}  // namespace qsa::records
