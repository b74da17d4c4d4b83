#pragma once
// The check campaign behind `qsacheck check` and `qsacheck mutants`, as a library call: on each
// backend, the SPEC 8 examples, the metadata invariants on generated batches, then simulated
// scenarios step by step against the model oracle, the invariants and the reference; optionally
// shrinking the first failure into a reproducer. Progress, reproducers and stop requests reach
// the caller through callbacks (CampaignObserver); what it needs of backends beyond the Backend
// interface, through CampaignHooks.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/engine/campaign_jobs.hpp"
#include "qsa/engine/campaign_settings.hpp"
#include "qsa/engine/check_report.hpp"
#include "qsa/traces/geometry_choice.hpp"
#include "qsa/traces/log_reuse.hpp"

namespace qsa::engine {

/// What a campaign needs of backends beyond the Backend interface. backends/ answers and the CLI
/// fills it in (the engine never links backends/). Only make_backend is required.
struct CampaignHooks {
  /// Creates a backend instance on a device (-1: the backend's default); tests pass a stand-in.
  std::function<std::unique_ptr<Backend>(const std::string& name, int device)> make_backend;
  /// The CUDA step kernel's paths and grids the jobs' steps take (the report's kernel_path_steps
  /// and grid_steps); empty: not counted.
  KernelPaths kernel_paths;
  /// What a backend declared beyond SPEC's ranges, described (docs/production-kernels.md).
  std::function<std::vector<std::pair<std::string, std::string>>(const Backend&)> declarations;
  /// Seconds a kernel from outside spent inside its own calls; nullopt for a built-in backend.
  std::function<std::optional<double>(const Backend&)> kernel_seconds;
  /// Whether jobs run their own instances at once (false: a plugin whose instances take turns).
  std::function<bool(const Backend&)> concurrent_instances;
  /// The per-call timeout of worker backends (process-wide), read and set: shrinking a worker
  /// fault lowers it for every candidate.
  std::function<std::chrono::milliseconds()> worker_timeout;
  std::function<void(std::chrono::milliseconds)> set_worker_timeout;
};

/// How a running campaign reaches its caller: the engine prints nothing and writes no file.
struct CampaignObserver {
  std::function<bool()> stop_requested;              // a signal or a time budget: end early
  std::function<std::string()> stop_reason;          // "SIGINT", "the time budget of 30 s"
  std::function<void(const std::string&)> progress;  // a progress line; the next one replaces it
  std::function<void()> new_phase;  // batches, scenarios, shrinking: the phase's first progress line shows at once
  std::function<void(const std::string&)> line;      // a line that stays (a job's end, a shrink)
  /// Writes a reproducer; returns why it could not (nullopt: written). Without it, each reproducer
  /// is listed as unwritten.
  std::function<std::optional<std::string>(const std::string& path, const std::string& text)> write_file;
};

/// A campaign as its caller chose it: backends that can run here, the jobs, and how to run them.
struct CampaignOptions {
  std::vector<std::string> backends;     // each can run here (the caller chose them)
  std::vector<std::string> unavailable;  // backends left out because they cannot run here (informational)
  std::vector<std::string> not_run;      // what the caller already knows will not run (the report's first lines)
  std::vector<CampaignJob> jobs;         // the scenario jobs of the unsharded campaign
  /// --allow-excluded FILE: input classes (ids of docs/input-space.md) a kernel's declared
  /// constraints may leave untested; any other class they leave untested fails the run.
  std::optional<std::vector<std::string>> allowed_exclusions;
  uint64_t seed = 1;
  int64_t batches = 3000;
  traces::FloatTolerance float_tolerance;
  std::string geometry;         // traces::GeometryChoice::to_string() of the jobs, for the settings hash
  std::string requests_csv_text;  // the replayed CSV or log (its options, then its text), for the hash
  std::string requests_log_text;
  /// A replayed log's figures (request_log_figures_json) and its implied reuse at a block size
  /// (log_reuse.hpp, computed once per B); null and empty when no log is replayed.
  nlohmann::json request_log = nullptr;
  std::function<traces::LogReuse(int64_t block_size)> log_reuse;
  std::string tool_version, commit, spec_version;  // the campaign's identity (a merge compares it)
  std::string out_dir = ".";              // where reproducers go
  bool shrink = true;                     // shrink the first failing scenario and write a reproducer
  bool keep_going = false;                // every check and job runs; findings are collected
  int64_t max_findings = 10;              // --keep-going: findings listed and shrunk (the rest counted)
  ShardSpec shard;                        // --shard K/N (implies keep_going)
  int64_t threads = 1;                    // --jobs: threads running scenario jobs (and shrinking)
  std::vector<int> devices;               // --devices: worker w uses devices[w % size]; empty: CPU or device 0
};

/// Runs the campaign and returns its report (its exit_code() is the process's): on each backend
/// the SPEC 8 examples, the generated, invalid and extreme metadata batches and the scenario jobs;
/// then the first failures shrunk into reproducers (written through the observer). A stop request
/// ends the work early with a partial report.
CheckReport run_campaign(const CampaignOptions& options, const CampaignHooks& hooks, const CampaignObserver& observer);

/// One campaign's run (run_campaign's state).
class Campaign {
 public:
  Campaign(CampaignOptions options, CampaignHooks hooks, CampaignObserver observer);
  CheckReport run();

 private:
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
  void write_scenario_reproducer(CheckFinding& finding, const JobResult& result, const traces::Scenario& small);
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

  bool stop_requested() const;
  void progress(const std::string& text) const;
  void line(const std::string& text) const;
  void new_phase() const;

  CampaignOptions options_;
  CampaignHooks hooks_;
  CampaignObserver observer_;
  const traces::FloatTolerance& tolerance_;  // options_.float_tolerance
  CheckReport report_;
  std::map<int64_t, traces::LogReuse> log_reuse_;  // log_reuse(), by B
  std::vector<Pending> pending_;
  std::map<std::string, size_t> row_of_workload_;  // of the backend being checked; indices into rows
  std::set<std::string> declined_;                 // what the backend's capabilities left out, once each
  bool step_update_missing_ = false;               // a job of the backend ran without a step update
  std::mutex declared_mutex_;                      // note_declarations from the pool's threads
};

}  // namespace qsa::engine
