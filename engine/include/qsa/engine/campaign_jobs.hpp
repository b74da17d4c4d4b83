#pragma once
// A campaign: simulated scenarios of several workloads run step by step on one backend with every
// check of the scenario runner. Shared by `qsacheck check` (shrinks and writes a reproducer on the
// first disagreement) and `qsacheck mutants` (stops at the first failure, no shrinking).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/input_space_coverage.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/batch_generator.hpp"
#include "qsa/traces/prefix_hits.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::engine {

/// One scenario to run: a workload, a seed and a length.
struct CampaignJob {
  traces::Workload workload;
  uint64_t seed = 1;
  int64_t steps = 0;
};

/// The default campaign (about 25 s of CPU on the reference; docs/campaign-time.md): every workload,
/// a few seeds each, derived from `seed`.
std::vector<CampaignJob> default_campaign(uint64_t seed);

/// `scenarios` scenarios of one workload.
std::vector<CampaignJob> workload_campaign(const traces::Workload& workload, uint64_t seed, int64_t scenarios,
                                           int64_t steps);

struct JobResult {
  std::string workload;
  uint64_t seed = 0;
  int64_t steps_run = 0;
  traces::Coverage coverage;  // of the steps run
  engine::InputSpaceCoverage input_space;  // the inputs of the steps run (input_space.hpp)
  traces::PrefixHitCounts sharing;  // what the steps' prefix hits shared (PrefixHitTracker)
  int64_t evictions = 0;            // prefix-cache blocks the simulator handed out again (Simulator::evictions)
  /// A replayed log: where each request of the window first started (-1: never ran), and the
  /// scenario's B, for the log-implied reuse it exercised (log_reuse.hpp).
  std::vector<int64_t> log_first_start;
  int64_t block_size = 0;
  std::optional<engine::RunFailure> failure;
  traces::Scenario scenario;  // the steps run, up to and including a failing one
  std::string cuda_kernel_path;  // KernelPaths::path of its config
  std::map<std::string, int64_t> cuda_grid_steps;  // KernelPaths::grids of each step
  bool step_update_ran = true;
  bool stopped = false;               // a stop request (signal, time budget) ended it before its last step
  /// A replayed log's requests (their 0-based indices in the log) that had not finished when the
  /// step limit ended the job: what did not run (exit 3).
  std::vector<int64_t> unfinished;
  std::vector<std::string> declined;  // left out by the backend's capabilities (ScenarioRunner::declined)
  /// Draws of this job whose geometry the backend's declared constraints exclude, each drawn again
  /// with another seed (redraw_seed): why each was excluded, and what its steps would have been.
  std::vector<std::string> excluded;
  engine::InputSpaceCoverage excluded_input_space;
  double seconds = 0;
  int device = -1;  // the device of the backend instance that ran it (--devices); -1: a CPU backend
};

/// Generated metadata batch i of a campaign with `seed` (the check "metadata on generated batches");
/// attempt k > 0 draws it again for a backend whose declared constraints excluded the earlier ones.
traces::GeneratedBatch campaign_batch(uint64_t seed, int64_t i, int attempt = 0);

/// How often a campaign draws a batch or scenario again for a backend's declared constraints
/// before it gives the input to the backend anyway (which then declines it: not run).
inline constexpr int kMaxRedraws = 64;
/// The seed of a job's attempt k (k = 0: the job's own).
uint64_t redraw_seed(uint64_t seed, int attempt);
/// Invalid batch i, and how many a campaign of `batches` generated batches runs (SPEC 1.4 check).
traces::GeneratedBatch campaign_invalid_batch(uint64_t seed, int64_t i);
int64_t campaign_invalid_batches(int64_t batches);
/// How many extreme batches (traces/extreme_batches.hpp) a campaign of `batches` generated batches
/// runs after its scenarios: all of them from kExtremeBatchesFrom on (the default campaign's 3000,
/// `qsacheck mutants`' 1000), none in a smaller one (they cost ~5 s of CPU and ~1.3 GiB).
inline constexpr int64_t kExtremeBatchesFrom = 1000;
int64_t campaign_extreme_batches(int64_t batches);

/// The CUDA step kernel's path of a scenario's config and a function naming its grid for each step
/// (backends/cuda_kernel_path.hpp answers; the campaign's caller hands them in). Empty: not counted.
struct KernelPaths {
  std::function<std::string(const traces::ScenarioConfig&)> path;
  std::function<std::function<std::string(const traces::StepRecord&)>(const traces::ScenarioConfig&)> grids;
  std::vector<std::string> all_paths, all_grids;  // every path and grid, for the report's "not reached"
};

/// Progress of a running job: called every step. `served_positions`: of a job replaying a request
/// log, the positions of its window served so far (ServedPositions), out of its schedule's
/// positions; 0 otherwise.
using ProgressFn = std::function<void(const CampaignJob& job, int64_t step, const traces::Coverage& so_far,
                                      int64_t served_positions, double seconds)>;

/// Runs one job on `backend` with every check; stops at the first failure, a stop request or when
/// `cancelled()` turns true (a parallel campaign no longer needs it). `options` carries the float
/// tolerance and where its figures accumulate.
JobResult run_job(const CampaignJob& job, Backend& backend, const ProgressFn& progress,
                  const engine::RunOptions& options = {}, const std::function<bool()>& cancelled = {},
                  const KernelPaths& kernel_paths = {});

/// Shrinks a failing scenario: a candidate is kept while a fresh backend of `make_backend` still
/// fails on it (the same check) and the reference passes it. Returns the smaller scenario (what it has so far when a stop
/// is requested, or after `seconds` when it is positive: a worker that hangs costs each candidate
/// its timeout).
traces::Scenario shrink_failure(const traces::Scenario& scenario, const engine::RunFailure& failure,
                                const std::function<std::unique_ptr<Backend>()>& make_backend,
                                traces::FloatTolerance tolerance,
                                const std::function<void(const traces::Scenario&, int64_t tries)>& progress,
                                const std::function<bool()>& stop_requested, double seconds = 0);

}  // namespace qsa::engine
