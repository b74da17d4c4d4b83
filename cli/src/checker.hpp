#pragma once
// The check campaign behind `qsacheck check` and `qsacheck mutants`: on each backend, the SPEC 8
// examples, the metadata invariants on generated batches, then simulated scenarios step by step
// against the model oracle, the invariants and the reference; optionally shrinking the first
// failure into a reproducer.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "campaign.hpp"
#include "campaign_settings.hpp"
#include "check_report.hpp"
#include "progress_line.hpp"
#include "request_log_options.hpp"
#include "qsa/traces/geometry_choice.hpp"
#include "qsa/traces/log_reuse.hpp"

namespace qsa::cli {

struct CheckOptions {
  /// --allow-excluded FILE: input classes (ids of docs/input-space.md) a kernel's declared
  /// constraints may leave untested; any other class they leave untested fails the run.
  std::optional<std::vector<std::string>> allowed_exclusions;
  /// --require-kernel: a run in which no kernel can be checked (only the reference can run here)
  /// is not run (exit 3) instead of a pass of the reference against itself.
  bool require_kernel = false;
  std::vector<std::string> backends;
  std::string workload;
  std::string requests_csv;
  RequestLogChoice requests_log;  // --requests: a request log replayed (path empty: none)
  traces::GeometryChoice geometry;  // --preset, --head-dim, ...: applied to every workload of the campaign
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
  bool keep_going = false;                // every check and job runs; findings are collected
  int64_t max_findings = 10;              // --keep-going: findings listed and shrunk (the rest counted)
  ShardSpec shard;                        // --shard K/N (implies keep_going)
  int64_t jobs = 1;                       // --jobs: threads running scenario jobs (and shrinking)
  std::vector<int> devices;               // --devices: worker w uses devices[w % size]; empty: CPU or device 0
  /// Creates a backend instance on a device (-1: the backend's default); tests pass a stand-in.
  std::function<std::unique_ptr<Backend>(const std::string& name, int device)> make_backend;
};

class Checker {
 public:
  explicit Checker(CheckOptions options);
  /// Runs the campaign and returns the report (its exit_code() is the process's). Bad input found
  /// before the work starts (an unknown backend or workload, a request CSV the caches cannot
  /// hold) is the report's setup_error; a stop request ends the work early with a partial report.
  CheckReport run();
  /// The campaign's jobs for these options (the geometry flags applied).
  std::vector<CampaignJob> campaign() const;

 private:
  std::vector<CampaignJob> unshaped_campaign() const;  // each workload's own geometry
  int64_t steps_or(int64_t fallback) const;
  /// Counts a failure on `row`; true when the finding is listed (within --max-findings), so the
  /// caller may keep what its reproducer needs.
  bool fail(CheckRow& row, CheckFinding finding);
  void add_pending(std::optional<MetadataInput> batch, std::string what, std::optional<JobResult> job);
  void run_spec_examples(size_t b, const std::string& name, Backend& backend);
  void run_generated_batches(size_t b, const std::string& name, Backend& backend);
  void run_extreme_batches(size_t b, const std::string& name, Backend& backend);
  // One valid batch of row `row_index`: counted, checked against the reference, a failure recorded
  // (`what` names it, `file_what` its reproducer); false when the row stops (a failure without
  // --keep-going).
  // Batches a backend declined as outside its declared capabilities: how many, and the first reason.
  struct Declines {
    int64_t count = 0;
    std::string first_reason;
  };
  bool run_valid_batch(Backend& backend, size_t row_index, int64_t order, const MetadataInput& input,
                       const std::string& what, const std::string& file_what, Declines* declines);
  // The "not run" line of `declines` (none when the backend declined nothing).
  void report_declines(const Declines& declines, const std::string& what, const std::string& name);
  void run_invalid_batches(size_t b, const std::string& name, Backend& backend);
  // The rows of the checks only shard 1 runs, empty, on the other shards, each where shard 1 adds it
  // (a merge requires one row order): the examples and batches before the scenarios, the extreme
  // batches after them.
  void add_batch_rows_of_shard_one(const std::string& name);
  void add_extreme_row_of_shard_one(const std::string& name);
  /// A failure, or nullopt; *declined is set when the input lies outside the backend's capabilities.
  std::optional<std::string> check_batch(Backend& backend, const MetadataInput& input, Error* declined);
  void not_run(const std::string& name, const std::string& what, const Error& why);
  /// The report's entry of what `backend` declared (created on first use; docs/production-kernels.md).
  DeclaredLimits& declared_limits(const std::string& name);
  /// Records `backend`'s declarations once (any instance of it will do; thread-safe).
  void note_declarations(const std::string& name, const Backend& backend);
  /// Counts one generated input that `name`'s declarations excluded (`what`: "batches", ...).
  void note_excluded(const std::string& name, const char* what, const std::string& why,
                     const engine::InputSpaceCoverage& classes);
  /// A batch of the campaign drawn again until `backend` admits it (kMaxRedraws at most).
  traces::GeneratedBatch admitted_batch(const std::string& name, const Backend& backend, int64_t i);
  /// --allow-excluded: the classes the declarations left untested beyond the allowed ones.
  void judge_exclusions();
  void write_batch_reproducer(CheckFinding& finding, const std::string& what, const MetadataInput& input);
  void run_scenarios(size_t b, const std::string& name, const std::vector<CampaignJob>& jobs);
  /// Processes one finished job, in job order: rows, coverage, findings, what it declined.
  void take_job_result(size_t b, const std::string& name, int64_t index, JobResult result);
  /// The replayed log's implied reuse at block size `block_size` (read once per B).
  const traces::LogReuse& log_reuse(int64_t block_size);
  void write_reproducers();
  void write_scenario_reproducer(CheckFinding& finding, const JobResult& result, const traces::Scenario& small,
                                 ProgressLine& progress);
  void note_stop(const std::string& what_is_left);
  int device_of_worker(int worker) const;
  std::unique_ptr<Backend> make_backend(const std::string& name, int device) const;

  // A listed finding's input, kept until the campaign ends and its reproducer is written.
  struct Pending {
    size_t finding = 0;  // index into report_.findings
    std::optional<MetadataInput> batch;
    std::string batch_what;  // "batch12", "invalid-batch3"
    std::optional<JobResult> job;
  };

  CheckOptions options_;
  traces::FloatTolerance tolerance_;  // parsed from options_.float_tolerance
  CheckReport report_;
  std::map<int64_t, traces::LogReuse> log_reuse_;  // log_reuse(), by B
  std::vector<Pending> pending_;
  std::map<std::string, size_t> row_of_workload_;  // of the backend being checked; indices into rows
  std::set<std::string> declined_;                 // what the backend's capabilities left out, once each
  bool step_update_missing_ = false;               // a job of the backend ran without a step update
  std::mutex declared_mutex_;                      // note_declarations from the pool's threads
};

}  // namespace qsa::cli
