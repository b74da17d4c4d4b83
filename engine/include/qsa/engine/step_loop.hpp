#pragma once
// The one loop that steps a scenario through the runner, for every caller: the campaign's jobs
// (steps generated as they run), replay and record-expected (steps read from a file), the fuzz
// targets, the property suite and the benchmarks. What a caller does between steps (progress,
// coverage, digests, a stop request) it does in an observer; the loop decides when the scenario
// ends and calls finish() (the last whole comparison) when it ran to its end.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qsa/engine/scenario_runner.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::engine {

struct StepObserver {
  /// Asked before each step: true ends the loop there (a signal, a cancelled job); unset: never.
  std::function<bool()> stop;
  /// After each step that ran, passed or failed (`failed`), before the loop looks at the outcome.
  std::function<void(int64_t index, const traces::StepRecord& record, const ScenarioRunner& runner, bool failed)>
      after_step;
};

struct StepLoopResult {
  std::optional<RunFailure> failure;  // the failing step's, or finish()'s
  int64_t steps_run = 0;              // steps that ran, a failing one included
  bool stopped = false;               // StepObserver::stop ended it before its last step
  std::string excluded;               // the backend's declarations excluded the next step (not
                                      // counted; RunOptions::stop_at_exclusion): the draw is abandoned
  bool failed_at_finish = false;      // the failure is finish()'s, every step having passed

  /// Steps that ran and passed.
  int64_t steps_passed() const { return steps_run - (failure && !failed_at_finish ? 1 : 0); }
};

/// StepSource (scenario_runner.hpp): the next step record, or nullptr when the scenario has no more
/// (a pointer the source keeps valid until the next call).

/// Steps `runner` through what `next` gives until it gives nothing, a step fails, a step is
/// excluded or the observer stops it; after the last step, finish(). A stopped or excluded run
/// skips finish() (what did not run is not judged).
StepLoopResult run_steps(ScenarioRunner& runner, const StepSource& next, const StepObserver& observer = {});

/// The same over steps already in memory (a scenario file's).
StepLoopResult run_steps(ScenarioRunner& runner, const std::vector<traces::StepRecord>& steps,
                         const StepObserver& observer = {});

}  // namespace qsa::engine
