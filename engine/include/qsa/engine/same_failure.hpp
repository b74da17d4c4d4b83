#pragma once
// The shrink predicate: does a smaller scenario still fail the way the original did? One function,
// so `qsacheck check` and the scenario property shrink by the same rule.

#include <functional>
#include <memory>

#include "qsa/backend_interface.hpp"
#include "qsa/engine/scenario_runner.hpp"
#include "qsa/engine/shrinker.hpp"

namespace qsa::engine {

/// Makes a fresh instance of the backend under test (each candidate starts from empty caches).
/// traces does not know the registry (the backends layer does): callers pass
/// `[&] { return BackendRegistry::global().create(name); }`.
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

/// A candidate fails "the same way" when a fresh backend from `make_backend` fails it with
/// `failure.check` (not as an invalid scenario) and the reference passes it (else the shrinker broke
/// the scenario). The predicate returns the failing step, for shrink_scenario(). Both run under
/// `tolerance`, so a tolerance-mode failure shrinks to a scenario that still exceeds N row-ulps.
FailingStep fails_the_same_way(BackendFactory make_backend, const RunFailure& failure, traces::FloatTolerance tolerance = {});

}  // namespace qsa::engine
