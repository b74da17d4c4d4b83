#pragma once
// An independent check of the multi-step rules a simulated scenario must keep (SPEC 7 and the
// simulator's guarantees in traces/simulator.hpp), by replaying the records against a small
// model: committed lengths, block holders, ring block owners. Test-only; it shares no code with
// the simulator beyond the record types and the capture sizes.

#include <string>
#include <vector>

#include "qsa/traces/scenario.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::testing {

/// The step shapes of the `step-edges` knobs (traces/workloads.hpp) that a scenario may have on
/// purpose; each relaxes only the scheduler rule it breaks.
struct EdgeShapes {
  bool zero_length_anywhere = false;  // zero-length chunks not only first (inside, or every chunk)
  bool prefill_first = false;         // the first chunk may be a prefill ahead of the decodes
  bool missing_blocks = false;        // one step's table row with a -1 entry or a dropped column
  bool missing_ring = false;          // a request's last step with ring block -1 or past the ring
};

/// The shapes a resolved workload (resolve_workload) asks for.
EdgeShapes edge_shapes_of(const traces::Workload& resolved);

/// Every broken rule, one line each naming the step, the request and the rule (at most `limit`).
/// `uniform_steps_padded`: uniform decode steps must be padded to a CUDA-graph capture size.
std::vector<std::string> scenario_rule_violations(const traces::Scenario& scenario, bool uniform_steps_padded,
                                                  size_t limit = 20, EdgeShapes shapes = {});

}  // namespace qsa::testing
