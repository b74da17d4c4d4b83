#pragma once
// Small hand-built scenarios for tests that must not depend on the simulator: prefill in chunks,
// decodes with rejected drafts, a preemption and recompute, a prefix hit, padding.

#include "qsa/traces/scenario.hpp"

namespace qsa::testing {

/// C = 4, B = 16, 3 drafts (R = 8), D = 32; two requests of one family and one alone, ~12 steps.
traces::Scenario hand_scenario(bool mrope = false, StoreDtype dtype = StoreDtype::kBf16);

}  // namespace qsa::testing
