#pragma once
// An independent check of the multi-step rules a simulated scenario must keep (SPEC 7 and the
// simulator's guarantees in traces/simulator.hpp), by replaying the records against a small
// model: committed lengths, block holders, ring block owners. Test-only; it shares no code with
// the simulator beyond the record types and the capture sizes.

#include <string>
#include <vector>

#include "qsa/traces/scenario.hpp"

namespace qsa::testing {

/// Every broken rule, one line each naming the step, the request and the rule (at most `limit`).
/// `uniform_steps_padded`: uniform decode steps must be padded to a CUDA-graph capture size.
std::vector<std::string> scenario_rule_violations(const traces::Scenario& scenario, bool uniform_steps_padded,
                                                  size_t limit = 20);

}  // namespace qsa::testing
