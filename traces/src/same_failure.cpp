#include "qsa/traces/same_failure.hpp"

namespace qsa::traces {

FailingStep fails_the_same_way(const std::string& backend_name, const RunFailure& failure, FloatTolerance tolerance) {
  return [backend_name, check = failure.check, tolerance](const Scenario& candidate) -> std::optional<int64_t> {
    auto backend = BackendRegistry::global().create(backend_name);
    RunOptions options;
    options.float_tolerance = tolerance;
    const auto f = run_scenario(candidate, *backend, options);
    if (!f || f->invalid_scenario || f->check != check) return std::nullopt;
    auto reference = BackendRegistry::global().create("reference");
    if (run_scenario(candidate, *reference)) return std::nullopt;  // the shrinker broke the scenario
    return f->step;
  };
}

}  // namespace qsa::traces
