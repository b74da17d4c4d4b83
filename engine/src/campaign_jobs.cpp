#include "qsa/engine/campaign_jobs.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "qsa/engine/campaign_inputs.hpp"
#include "qsa/engine/same_failure.hpp"
#include "qsa/engine/step_loop.hpp"
#include "qsa/traces/extreme_batches.hpp"
#include "qsa/traces/invalid_batch.hpp"
#include "qsa/traces/replay_figures.hpp"
#include "qsa/traces/request_replay.hpp"
#include "qsa/traces/simulator.hpp"

namespace qsa::engine {

std::vector<CampaignJob> default_campaign(uint64_t seed) {
  // Sized to a campaign of about half a minute on the reference on 2 cores (docs/campaign-time.md).
  // Round robin over the workloads, so every workload runs early and a bug shows soon. mrope-fp8
  // goes second: every one of its scenarios has MRoPE and the fp8 store, and a bug there (e4m3
  // rounding, the MRoPE axis, the ring's position tails) should not wait for eight other scenarios.
  std::vector<std::string> names = traces::workload_names();
  const auto fp8 = std::find(names.begin(), names.end(), "mrope-fp8");
  if (fp8 != names.end() && fp8 != names.begin()) std::rotate(names.begin() + 1, fp8, fp8 + 1);
  std::vector<std::vector<CampaignJob>> per_workload;
  for (const std::string& name : names) {
    // adversarial mixes eight workloads; layouts takes the kernel's 30 paths in turn, briefly;
    // edges takes its five classes in turn, more briefly, step-edges its eight briefest of all.
    const int64_t scenarios = name == "adversarial"  ? 12
                              : name == "layouts"    ? 30
                              : name == "edges"      ? 5
                              : name == "step-edges" ? 8
                                                     : 6;
    const int64_t steps = name == "layouts" ? 150 : name == "edges" ? 40 : name == "step-edges" ? 16 : 1000;
    per_workload.push_back(workload_campaign(traces::workload_by_name(name), seed, scenarios, steps));
  }
  size_t total = 0;
  for (const auto& list : per_workload) total += list.size();
  std::vector<CampaignJob> jobs;
  for (size_t round = 0; jobs.size() < total; ++round)
    for (const auto& list : per_workload)
      if (round < list.size()) jobs.push_back(list[round]);
  // Each edges and step-edges scenario (40 or 16 steps) holds a class no other workload reaches:
  // all thirteen right after the first default and mrope-fp8 scenarios, so a bug of one class shows
  // at once.
  std::stable_partition(
      jobs.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(jobs.size(), 2)), jobs.end(),
      [](const CampaignJob& job) { return job.workload.name == "edges" || job.workload.name == "step-edges"; });
  return jobs;
}

std::vector<CampaignJob> workload_campaign(const traces::Workload& workload, uint64_t seed, int64_t scenarios,
                                           int64_t steps) {
  std::vector<CampaignJob> jobs;
  for (int64_t i = 0; i < scenarios; ++i)
    jobs.push_back(CampaignJob{workload, seed * 1000003 + static_cast<uint64_t>(i), steps});
  return jobs;
}

traces::GeneratedBatch campaign_batch(uint64_t seed, int64_t i, int attempt) {
  traces::Rng rng = traces::Rng(seed).fork(static_cast<uint64_t>(i));
  if (attempt > 0) rng = rng.fork(static_cast<uint64_t>(attempt));
  return traces::random_metadata_input(rng);
}

uint64_t redraw_seed(uint64_t seed, int attempt) {
  // Far from the campaign's other seeds (seed · 1000003 + i), so a redraw repeats no other job.
  return seed + static_cast<uint64_t>(attempt) * 0x9E3779B97F4A7C15ULL;
}

traces::GeneratedBatch campaign_invalid_batch(uint64_t seed, int64_t i) {
  traces::Rng rng = traces::Rng(seed ^ 0x1a7a11dULL).fork(static_cast<uint64_t>(i));
  // The rules in turn, so that every one is broken in every campaign (SPEC 1.4 has 16 after `kind`).
  return traces::random_invalid_metadata_input(rng, static_cast<int>(i % traces::kNumBreakableRules));
}

int64_t campaign_invalid_batches(int64_t batches) { return std::max<int64_t>(1, batches / 10); }

int64_t campaign_extreme_batches(int64_t batches) {
  return batches >= kExtremeBatchesFrom ? traces::kNumExtremeBatches : 0;
}

namespace {

// One draw of a job: its steps run and checked on `backend` until the last, a failure, a stop, or
// (options.stop_at_exclusion) a step the backend's declared constraints exclude (result.excluded
// then holds why).
JobResult run_draw(const CampaignJob& job, uint64_t seed, Backend& backend, const ProgressFn& progress,
                   engine::RunOptions options, const std::function<bool()>& cancelled, const KernelPaths& kernel_paths) {
  const auto start = std::chrono::steady_clock::now();
  JobResult result;
  result.workload = job.workload.name;
  result.seed = seed;
  traces::Simulator simulator(job.workload, seed);
  result.scenario.config = simulator.config();
  if (kernel_paths.path) result.cuda_kernel_path = kernel_paths.path(simulator.config());
  options.input_space = &result.input_space;
  engine::ScenarioRunner runner(simulator.config(), backend, options);
  traces::CoverageCounter coverage(simulator.config());
  traces::ServedPositions served;
  const std::function<std::string(const traces::StepRecord&)> grid_of =
      kernel_paths.grids ? kernel_paths.grids(simulator.config()) : nullptr;
  const engine::StepSource next = [&]() -> const traces::StepRecord* {
    if (static_cast<int64_t>(result.scenario.steps.size()) >= job.steps || simulator.done()) return nullptr;
    result.scenario.steps.push_back(simulator.next());
    return &result.scenario.steps.back();
  };
  engine::StepObserver observer;
  observer.stop = [&]() { return cancelled && cancelled(); };
  observer.after_step = [&](int64_t index, const traces::StepRecord& step, const engine::ScenarioRunner&, bool failed) {
    coverage.add(step);
    if (job.workload.schedule) served.add(step);
    if (grid_of)
      if (const std::string grid = grid_of(step); !grid.empty()) ++result.cuda_grid_steps[grid];
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!failed && progress) progress(job, index + 1, coverage.coverage(), served.served(), result.seconds);
  };
  const engine::StepLoopResult run = engine::run_steps(runner, next, observer);
  result.failure = run.failure;
  result.stopped = run.stopped;
  result.steps_run = run.steps_passed();
  if (!run.excluded.empty()) {
    result.excluded.push_back(run.excluded);
    return result;
  }
  if (!result.failure && !result.stopped && job.workload.schedule && !simulator.done()) {
    // Request ids follow the log's arrivals: id k is arrival k of the window.
    std::set<int64_t> finished;
    for (const traces::StepRecord& step : result.scenario.steps) finished.insert(step.finished.begin(), step.finished.end());
    const std::vector<traces::LoggedArrival>& arrivals = job.workload.schedule->arrivals;
    for (size_t k = 0; k < arrivals.size(); ++k)
      if (finished.count(static_cast<int64_t>(k)) == 0) result.unfinished.push_back(arrivals[k].index);
  }
  result.coverage = coverage.coverage();
  result.sharing = runner.prefix_hit_counts();
  result.evictions = simulator.evictions();
  result.block_size = simulator.config().block_size;
  if (job.workload.schedule) {  // request id k is arrival k of the window
    result.log_first_start.assign(job.workload.schedule->arrivals.size(), -1);
    for (const traces::StepRecord& step : result.scenario.steps) traces::note_first_starts(step, &result.log_first_start);
  }
  result.step_update_ran = runner.step_update_supported();
  result.declined.assign(runner.declined().begin(), runner.declined().end());
  return result;
}

}  // namespace

JobResult run_job(const CampaignJob& job, Backend& backend, const ProgressFn& progress,
                  const engine::RunOptions& given_options, const std::function<bool()>& cancelled,
                  const KernelPaths& kernel_paths) {
  // A kernel's declared constraints may exclude a draw of this job, by its geometry or at a step
  // (a block id whose slots pass int32): draw again with another seed of the same workload, count
  // what each excluded draw would have generated, and give up after kMaxRedraws (the last draw then
  // runs, and the backend declines what it cannot take: not run).
  std::vector<std::string> excluded;
  engine::InputSpaceCoverage excluded_input_space;
  for (int attempt = 0;; ++attempt) {
    const uint64_t seed = redraw_seed(job.seed, attempt);
    const bool last = attempt + 1 == kMaxRedraws;
    if (!last) {
      const auto why = backend.excludes(traces::step_geometry(traces::resolve_workload(job.workload, seed).config));
      if (why) {
        excluded.push_back(*why);
        excluded_input_space += job_input_space(CampaignJob{job.workload, seed, job.steps});
        continue;
      }
    }
    engine::RunOptions options = given_options;
    options.stop_at_exclusion = !last;
    JobResult result = run_draw(job, seed, backend, progress, options, cancelled, kernel_paths);
    if (!result.excluded.empty()) {
      excluded.push_back(result.excluded.back());
      excluded_input_space += job_input_space(CampaignJob{job.workload, seed, job.steps});
      continue;
    }
    result.excluded = std::move(excluded);
    result.excluded_input_space = std::move(excluded_input_space);
    return result;
  }
}

traces::Scenario shrink_failure(const traces::Scenario& scenario, const engine::RunFailure& failure,
                                const std::function<std::unique_ptr<Backend>()>& make_backend,
                                traces::FloatTolerance tolerance,
                                const std::function<void(const traces::Scenario&, int64_t tries)>& progress,
                                const std::function<bool()>& stop_requested, double seconds) {
  const engine::FailingStep same_way = engine::fails_the_same_way(make_backend, failure, tolerance);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto failing_step = [&](const traces::Scenario& candidate) -> std::optional<int64_t> {
    if ((stop_requested && stop_requested()) || (seconds > 0 && std::chrono::steady_clock::now() >= deadline))
      return std::nullopt;  // keep what is shrunk so far
    return same_way(candidate);
  };
  return engine::shrink_scenario(scenario, failing_step, 400,
                                 [&](const traces::Scenario& s, const engine::ShrinkStats& stats) {
                                   if (progress) progress(s, stats.tries);
                                 });
}

}  // namespace qsa::engine
