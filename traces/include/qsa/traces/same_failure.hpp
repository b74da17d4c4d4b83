#pragma once
// The shrink predicate: does a smaller scenario still fail the way the original did? One function,
// so `qsacheck check` and the scenario property shrink by the same rule.

#include <string>

#include "qsa/traces/scenario_runner.hpp"
#include "qsa/traces/shrinker.hpp"

namespace qsa::traces {

/// A candidate fails "the same way" when a fresh `backend_name` from the registry fails it with
/// `failure.check` (not as an invalid scenario) and the reference passes it (else the shrinker broke
/// the scenario). The predicate returns the failing step, for shrink_scenario(). Both run under
/// `tolerance`, so a tolerance-mode failure shrinks to a scenario that still exceeds N row-ulps.
FailingStep fails_the_same_way(const std::string& backend_name, const RunFailure& failure,
                               FloatTolerance tolerance = {});

}  // namespace qsa::traces
