#pragma once
// Small hand-built scenarios for tests that must not depend on the simulator: prefill in chunks,
// decodes with rejected drafts, a preemption and recompute, a prefix hit, padding.

#include "qsa/traces/scenario.hpp"

namespace qsa::testing {

/// C = 4, B = 16, 3 drafts (R = 8), D = 32; two requests of one family and two alone, 19 steps:
/// chunked prefills (one starting inside a group and longer than R), a prefix hit, decodes with
/// rejected drafts and ring wraps, a one-row decode, a preemption and recompute, padded
/// requests, token-only padding, negative common slots.
traces::Scenario hand_scenario(bool mrope = false, StoreDtype dtype = StoreDtype::kBf16);

/// hand_scenario() with one step that schedules a request with no rows between two others (legal
/// by SPEC 1.1). In memory only: the scenario file format needs every chunk to have a row.
traces::Scenario hand_scenario_with_zero_length_request(bool mrope = false, StoreDtype dtype = StoreDtype::kBf16);

}  // namespace qsa::testing
