#pragma once
// What `qsacheck check` ran and found: rows of checks per backend, per-workload scenario results,
// coverage, what did not run; its JSON (report_to_json) and reading it back. The CLI prints it.

#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/engine/float_comparator.hpp"
#include "qsa/engine/float_statistics.hpp"
#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/status.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::engine {

struct CheckRow {
  std::string check;
  std::string backend;
  int64_t cases = 0;
  int64_t failures = 0;
  double seconds = 0;
  std::string first_failure;
  int64_t first_failure_order = -1;  // campaign_order() of the first failure: a merge keeps the earliest
};

/// Where a finding lies in the unsharded campaign: backends in order, then per backend the SPEC 8
/// examples, the generated batches, the invalid batches and the scenario jobs. Findings are listed
/// (and capped by --max-findings) in this order, so every shard keeps the campaign's first ones.
enum class CampaignPhase { kExamples = 0, kGeneratedBatches = 1, kInvalidBatches = 2, kScenarios = 3, kExtremeBatches = 4 };
int64_t campaign_order(size_t backend_index, CampaignPhase phase, int64_t index);

/// One disagreement of a --keep-going campaign (or the one of a campaign that stops at the first).
struct CheckFinding {
  int64_t order = 0;  // campaign_order()
  std::string backend;
  std::string check;     // the row's check
  int64_t job = -1;      // scenario job index in the unsharded campaign; -1 for examples and batches
  std::string workload;  // scenario findings
  uint64_t seed = 0;
  int64_t step = -1;
  std::string what;  // the finding as the row's first_failure says it
  std::string reproducer;
  std::string replay_command;
  int device = -1;  // the device the job ran on (--devices); -1 for a CPU backend
};

/// One scenario job as run: the merge checks that every job of the campaign ran exactly once.
struct JobRecord {
  int64_t index = 0;  // in the unsharded campaign
  std::string backend;
  std::string workload;
  uint64_t seed = 0;
  int64_t steps_run = 0;
  std::string result;  // "passed", "failed", "stopped"
  int device = -1;
  double seconds = 0;
};

/// What makes several reports one campaign (`qsacheck merge` compares it).
struct CampaignIdentity {
  std::string tool_version, commit, spec_version;
  std::string settings_hash;  // of every setting that shapes the jobs (campaign_settings.hpp)
  int64_t shard_index = 1;    // K of --shard K/N; 1/1 unsharded
  int64_t shard_count = 1;
  bool keep_going = false;
  int64_t max_findings = 0;
  int64_t jobs_total = 0;  // scenario jobs per backend in the unsharded campaign
};

/// Figures of this run that are not the campaign's result: equal campaigns may differ in them.
struct RunFacts {
  std::string host;
  std::string started_at;  // UTC, ISO 8601
  double wall_seconds = 0;
  int64_t threads = 1;  // --jobs
  struct Device {
    int device = -1;
    int64_t jobs = 0, steps = 0;
    double seconds = 0;
  };
  std::vector<Device> devices;           // per device (or CPU worker) figures
  nlohmann::json merged_from = nullptr;  // merge: the shards' own run facts
};

/// This host's name and the date now (UTC, ISO 8601): the start of a run's facts.
RunFacts run_facts_now();

/// What one backend declared beyond SPEC's ranges and what that left out of the campaign
/// (docs/production-kernels.md): present for a backend that declares constraints or deviations,
/// or whose capabilities excluded or declined anything.
struct DeclaredLimits {
  std::string backend;
  std::map<std::string, std::string> declared;  // its constraints and deviations, described
  std::vector<std::string> deviations;                        // Deviations::names(), applied to every comparison
  /// Inputs generated and then excluded by the declarations, never given to the backend (each
  /// drawn again where the campaign can): "spec_examples", "batches", "extreme_batches", "scenarios".
  std::map<std::string, int64_t> excluded;
  int64_t declined = 0;                // inputs given to the backend and declined by it (not run)
  /// Why, by kind (a reason with the numbers of its first clause as N: "slot N (it declares at
  /// most 2147483647)"), and how many inputs each excluded.
  std::map<std::string, int64_t> reasons;
  engine::InputSpaceCoverage excluded_input_space;  // the classes of the excluded inputs
};

/// The version of the check report's JSON (report_to_json): raised when a field changes meaning or
/// goes away, not when one is added; docs/json-schema.md lists what each version holds.
inline constexpr int64_t kCheckReportSchemaVersion = 1;

struct CheckReport {
  uint64_t seed = 0;
  std::vector<std::string> backends;
  std::vector<CheckRow> rows;
  traces::Coverage coverage;
  engine::InputSpaceCoverage input_space;  // of every input generated, all backends (input_space.hpp)
  /// What the scenarios' prefix hits shared (PrefixHitTracker) and the prefix-cache blocks their
  /// simulators evicted, all backends: `sharing` of the JSON (check_log_figures.hpp).
  traces::PrefixHitCounts sharing;
  int64_t evictions = 0;
  /// A replayed log, over its scenario runs: the log-implied reusable positions at each run's B
  /// (log_reuse.hpp) and those the runs reused (`request_log.exercised`).
  int64_t log_implied_reusable = 0;
  int64_t log_implied_reused = 0;
  /// Steps per path of the CUDA step-update kernel (backends::cuda_step_kernel_path of each
  /// scenario's config), whichever backend ran them: what a CUDA campaign of the same jobs covers.
  std::map<std::string, int64_t> kernel_path_steps;
  /// Steps per grid of that kernel ("latency", "streaming": backends::cuda_step_grid of each step),
  /// counted the same way.
  std::map<std::string, int64_t> grid_steps;
  /// Every path and grid of that kernel (KernelPaths::all_paths, all_grids), for what no step reached.
  std::vector<std::string> all_kernel_paths, all_grids;
  std::vector<std::string> not_run;        // checks of the chosen backends that could not run (exit 3)
  /// Every (check, backend) row the campaign planned, in campaign order, whether or not it ran: a
  /// run that stops at its first finding still lists the others in JUnit, as skipped.
  /// Not part of the JSON report.
  std::vector<std::pair<std::string, std::string>> planned;
  std::vector<DeclaredLimits> declared_limits;  // per backend that declares limits (docs/production-kernels.md)
  /// --allow-excluded: the input classes the declarations may leave untested; a class left
  /// untested beyond them is listed in exclusions_beyond_allowed and fails the run (exit 1).
  std::optional<std::vector<std::string>> allowed_exclusions;
  std::vector<std::string> exclusions_beyond_allowed;
  std::vector<std::string> unavailable;    // backends not chosen because they cannot run here (informational)
  /// Per kernel from outside, its scenarios' steps, wall seconds and the seconds inside its own
  /// calls (summary text only, not in the JSON): qsacheck's share is the difference.
  std::vector<std::string> kernel_time;
  std::string reproducer;                  // file written on a failure, empty otherwise
  std::string replay_command;              // the command that re-runs it
  int64_t first_failure_step = -1;         // step of the first scenario failure, -1 if none
  std::optional<Error> setup_error;        // the campaign could not start (e.g. unknown backend)
  std::string stopped_by;                  // "SIGINT", "SIGTERM", "the time budget of 30 s"; empty if it ran to the end
  std::vector<std::string> unwritten;      // files the campaign meant to write but could not
  traces::FloatTolerance float_tolerance;  // how compressed rows and q_out were compared
  /// Tolerance mode: per backend, the row-ulp figures of its scenarios (a deque keeps the
  /// addresses the runs accumulate into).
  std::deque<std::pair<std::string, engine::StepFloatStatistics>> float_statistics;
  /// Per backend: the job index whose element is the worst of compressed and q_out (a merge keeps
  /// the earliest of equal distances, as one sequential run does); -1 when none.
  std::vector<std::pair<int64_t, int64_t>> float_worst_jobs;
  CampaignIdentity campaign;
  /// The replayed request log's figures (request_log_figures_json); null when no log was replayed.
  nlohmann::json request_log = nullptr;
  std::vector<CheckFinding> findings;  // the first --max-findings, in campaign order
  int64_t findings_total = 0;          // all of them, listed or not
  std::vector<JobRecord> jobs;         // in job index order
  RunFacts run;

  bool failed() const;
  /// 0 every check ran and passed, 1 a check failed, 3 passed but something did not run.
  int exit_code() const;
  CheckRow& add(const std::string& check, const std::string& backend);
};

/// The input classes (docs/input-space.md ids, in table order) of which some backend's
/// declarations excluded inputs and which no input that ran reached: what was never tested.
std::vector<std::string> untested_classes(const CheckReport& report);
nlohmann::json declared_limits_to_json(const CheckReport& report);
/// Adds `from` into `into` (counts add, reasons join): shards of one campaign.
void add_declared_limits(const DeclaredLimits& from, std::vector<DeclaredLimits>* into);

/// True when the reference is the only backend checked: no kernel was.
bool checks_no_kernel(const CheckReport& report);
/// "no kernel can be checked here (cuda: no CUDA device ...); the reference runs alone ...; to check
/// a kernel pass --backend ...": the first line and the verdict of such a run.
std::string no_kernel_note(const CheckReport& report);

/// "passed (reference only: ...; no kernel checked)", "FAILED", ...: the words after "RESULT: ".
std::string verdict_text(const CheckReport& report);

/// The CUDA kernel paths and grids no step reached (of all_kernel_paths and all_grids).
std::vector<std::string> kernel_paths_not_reached(const CheckReport& report);
std::vector<std::string> grids_not_reached(const CheckReport& report);

nlohmann::json report_to_json(const CheckReport& report);
/// The `coverage` object of a report (docs/workloads.md "Coverage figures"), also in `simulate`'s.
nlohmann::json coverage_to_json(const traces::Coverage& coverage);

}  // namespace qsa::engine
