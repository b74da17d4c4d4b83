#include "qsa/engine/step_loop.hpp"

namespace qsa::engine {

StepLoopResult run_steps(ScenarioRunner& runner, const StepSource& next, const StepObserver& observer) {
  StepLoopResult result;
  for (;;) {
    if (observer.stop && observer.stop()) {
      result.stopped = true;
      return result;
    }
    const traces::StepRecord* record = next();
    if (record == nullptr) break;
    result.failure = runner.step(*record);
    if (!runner.excluded().empty()) {  // not run: the declarations exclude it
      result.excluded = runner.excluded();
      return result;
    }
    const int64_t index = result.steps_run++;
    if (observer.after_step) observer.after_step(index, *record, runner, result.failure.has_value());
    if (result.failure) return result;
  }
  result.failure = runner.finish();
  result.failed_at_finish = result.failure.has_value();
  return result;
}

StepLoopResult run_steps(ScenarioRunner& runner, const std::vector<traces::StepRecord>& steps,
                         const StepObserver& observer) {
  size_t at = 0;
  return run_steps(runner, [&]() { return at < steps.size() ? &steps[at++] : nullptr; }, observer);
}

}  // namespace qsa::engine
