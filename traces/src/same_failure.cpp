#include "qsa/traces/same_failure.hpp"

#include "qsa/reference/backend.hpp"

namespace qsa::traces {

FailingStep fails_the_same_way(BackendFactory make_backend, const RunFailure& failure) {
  return [make_backend = std::move(make_backend), check = failure.check](const Scenario& candidate) {
    auto backend = make_backend();
    const auto f = run_scenario(candidate, *backend);
    if (!f || f->invalid_scenario || f->check != check) return std::optional<int64_t>();
    reference::ReferenceBackend reference;
    if (run_scenario(candidate, reference)) return std::optional<int64_t>();  // the shrinker broke the scenario
    return std::optional<int64_t>(f->step);
  };
}

}  // namespace qsa::traces
