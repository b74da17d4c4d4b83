#pragma once
// One delta-debugging shrinker over scenarios, used by the properties and the CLI alike. Requests
// are independent in a scenario (SPEC 7), so removing a request from every step leaves a valid
// scenario; the steps after the failing one are cut; padding and empty steps are dropped. A
// candidate is kept only while the caller's predicate still reports a failure.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>

#include "qsa/traces/scenario.hpp"

namespace qsa::engine {

/// The step at which `scenario` fails the way the caller cares about, or nullopt when it passes
/// (or fails only because the shrinker broke it: the caller checks the reference passes).
using FailingStep = std::function<std::optional<int64_t>(const traces::Scenario& scenario)>;

struct ShrinkStats {
  int64_t tries = 0;     // predicate calls
  int64_t accepted = 0;  // candidates kept
};

/// Shrinks a failing scenario. `max_tries` bounds the predicate calls; `progress` (optional) is
/// called after each try with the current size (steps, requests).
traces::Scenario shrink_scenario(const traces::Scenario& failing, const FailingStep& failing_step, int64_t max_tries = 400,
                         const std::function<void(const traces::Scenario&, const ShrinkStats&)>& progress = {},
                         ShrinkStats* stats = nullptr);

/// The scenario without the given requests (their chunks and events), minus steps left empty.
traces::Scenario remove_requests(const traces::Scenario& scenario, const std::set<int64_t>& requests);

/// Requests that appear in the scenario, in id order.
std::vector<int64_t> requests_of(const traces::Scenario& scenario);

}  // namespace qsa::engine
