#pragma once
// The check campaign behind `qsacheck check` and `qsacheck mutants`: on each backend, the SPEC 8
// examples, the metadata invariants on generated batches, then simulated scenarios step by step
// against the model oracle, the invariants and the reference; optionally shrinking the first
// failure into a reproducer.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign.hpp"
#include "check_report.hpp"
#include "progress_line.hpp"

namespace qsa::cli {

struct CheckOptions {
  std::vector<std::string> backends;
  std::string workload;
  std::string requests_csv;
  int64_t steps = 0;      // 0: the campaign's default
  int64_t scenarios = 4;  // with --workload or --requests-csv
  uint64_t seed = 1;
  int64_t batches = 3000;
  std::string json_path;
  std::string junit_path;  // --junit: the result as JUnit XML too
  std::string out_dir = ".";
  std::string float_tolerance = "exact";  // --float-tolerance: exact or row-ulp:N
  bool shrink = true;                     // shrink the first failing scenario and write a reproducer
  bool quiet = false;                     // no progress lines, no report (the caller prints)
};

class Checker {
 public:
  explicit Checker(CheckOptions options);
  /// Runs the campaign and returns the report (its exit_code() is the process's). Bad input found
  /// before the work starts (an unknown backend or workload, a request CSV the caches cannot
  /// hold) is the report's setup_error; a stop request ends the work early with a partial report.
  CheckReport run();
  /// The campaign's jobs for these options.
  std::vector<CampaignJob> campaign() const;

 private:
  int64_t steps_or(int64_t fallback) const;
  void fail(CheckRow& row, const std::string& what);
  void run_spec_examples(const std::string& name, Backend& backend);
  void run_generated_batches(const std::string& name, Backend& backend);
  void run_invalid_batches(const std::string& name, Backend& backend);
  /// A failure, or nullopt; *declined is set when the input lies outside the backend's capabilities.
  std::optional<std::string> check_batch(Backend& backend, const MetadataInput& input, Error* declined);
  void not_run(const std::string& name, const std::string& what, const Error& why);
  void write_batch_reproducer(const std::string& name, const std::string& what, const MetadataInput& input);
  void run_scenarios(const std::string& name, Backend& backend, const std::vector<CampaignJob>& jobs);
  void write_reproducer(const std::string& name, const JobResult& result, ProgressLine& progress);
  void note_stop(const std::string& what_is_left);

  CheckOptions options_;
  traces::FloatTolerance tolerance_;  // parsed from options_.float_tolerance
  CheckReport report_;
};

}  // namespace qsa::cli
