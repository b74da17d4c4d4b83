#pragma once
// `qsacheck check`'s campaign from its flags: the backends chosen, the jobs built (workloads, a
// request CSV or log, the geometry flags), then engine::run_campaign with the backends' hooks
// and an observer that prints progress, honours stop requests and writes the reproducers.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign_names.hpp"
#include "qsa/traces/geometry_choice.hpp"
#include "request_log_options.hpp"

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

  CheckOptions options_;
};

}  // namespace qsa::cli
