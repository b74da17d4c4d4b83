#pragma once
// Content version 3 (docs/content.md): the values that must not matter, or matter only for q_out,
// made stale, extreme and adversarial, as CUDA-graph padding leaves them. vLLM captures a step into
// a graph over persistent input buffers and replays it with fewer real rows: padding rows, padded
// requests and the table storage past NR and W keep whatever an earlier step wrote there. The
// field table (qsa/input_fields.hpp) gives each role's legal values; everything written here stays
// legal (SPEC 1.4: padding common slots negative, positions in [0, max_position)).

#include <cstdint>

#include "qsa/step_types.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

/// Rewrites, in a valid step input of step `index` whose first `live_requests` requests have
/// rows (the rest are padded requests), every element on a role other than live:
/// - padding rows t in [M, N): a copy of a live row's key, queries and positions (the stale row
///   a persistent buffer still holds), or extreme positions (0, max_position - 1, axes apart);
///   their common slots are negative values other than -1 (INT64_MIN, -2^31, -(slot + 1) of a
///   live row);
/// - padded requests' rows of both block tables, table rows past NR and storage past the W used
///   columns: a live request's block ids (so a kernel that reads them writes a live block), other
///   blocks of the cache and negative ids.
/// A pure function of (config.seed, index, the input): replays give the same input.
void add_stale_padding(const ScenarioConfig& config, int64_t index, int64_t live_requests, StepInput* input);

}  // namespace qsa::traces
