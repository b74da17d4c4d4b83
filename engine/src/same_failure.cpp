#include "qsa/engine/same_failure.hpp"

#include "qsa/reference/reference_backend.hpp"

namespace qsa::engine {

FailingStep fails_the_same_way(BackendFactory make_backend, const RunFailure& failure, traces::FloatTolerance tolerance) {
  return [make_backend = std::move(make_backend), check = failure.check,
          tolerance](const traces::Scenario& candidate) -> std::optional<int64_t> {
    auto backend = make_backend();
    RunOptions options;
    options.float_tolerance = tolerance;
    const auto f = run_scenario(candidate, *backend, options);
    if (!f || f->invalid_scenario || f->check != check) return std::nullopt;
    reference::ReferenceBackend reference;
    if (run_scenario(candidate, reference)) return std::nullopt;  // the shrinker broke the scenario
    return f->step;
  };
}

}  // namespace qsa::engine
