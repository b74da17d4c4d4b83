#pragma once
// What both benchmark binaries share: the --quick and --tuning_cases flags, the verification flag,
// a console reporter that keeps each benchmark's median, and main()'s body (GPU probe,
// QSA_REQUIRE_GPU, exit code).

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace qsa::bench {

/// --quick: one repetition at the command-line min time (the bench-smoke CTest entries).
extern bool quick_mode;
/// --tuning_cases=N (1 to 8, default 1): every tuning variant timed as N benchmark cases, each with
/// buffers of its own, named .../case:k for k >= 2. Two cases of one kernel can differ by up to
/// 8 % at decode 64 x 4 (docs/performance.md, "How we measure"), so an A/B between variants should
/// see that spread.
extern int tuning_cases;
/// The name of tuning case k (1-based) of the variant `name`.
std::string tuning_case_name(const std::string& name, int k);
/// Set by a GPU benchmark whose output differs from the reference or whose CUDA call failed.
extern bool verification_failed;

/// The console reporter, also keeping each benchmark's median (or only) time in microseconds
/// and its bytes_per_second counter, for the summary printed after the run.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  explicit MedianReporter(bool color);
  void ReportRuns(const std::vector<Run>& runs) override;

  /// The median time of `name` in microseconds, or -1 when it did not run.
  [[nodiscard]] double micros(const std::string& name) const;
  /// The median bytes_per_second counter of `name`, or -1 when it has none.
  [[nodiscard]] double bytes_per_second(const std::string& name) const;
  [[nodiscard]] const std::map<std::string, double>& all_micros() const { return micros_; }

 private:
  std::map<std::string, double> micros_;
  std::map<std::string, double> bytes_per_second_;
};

/// main() of a benchmark binary: parses --quick and Google Benchmark's flags, probes the GPU
/// (without one only CPU benchmarks run; QSA_REQUIRE_GPU=1 makes that an error), calls
/// `register_benchmarks(gpu)`, runs them, calls `print_summary`, and returns the exit code
/// (1 when verification failed).
int run_benchmark_main(int argc, char** argv, const std::function<void(bool gpu)>& register_benchmarks,
                       const std::function<void(const MedianReporter&)>& print_summary);

}  // namespace qsa::bench
