#pragma once
// The one validation of SPEC 1.4 that every implementation calls before computing anything.

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"
#include "qsa/types.hpp"

namespace qsa {

/// Checks a metadata input in the order of SPEC 1.4 and reports the first failure.
///
/// Returns kOk, or kInvalidInput with *error naming field, index (first offending element or -1)
/// and rule. Pure: reads the input only. Example: qsl = {0, 3, 2} gives
/// {field "query_start_loc", index 2, rule "decreasing"}.
[[nodiscard]] Status validate(const MetadataInput& input, Error* error);

/// The cache-kind parameters alone (step 1 of SPEC 1.4); `num_requests` feeds request_capacity.
[[nodiscard]] Status validate_cache_config(const CacheKindConfig& cache, int64_t num_requests, Error* error);

/// The batch fields shared by every cache kind (steps 2-4 of SPEC 1.4): qsl, N, seq_lens.
[[nodiscard]] Status validate_batch(const Batch& batch, Error* error);

/// Checks a step-update input (SPEC 1.4, both parts): the compressed group's metadata input,
/// the ring group's (its block table reported as "ring_block_table"), then head_dim, rotary_dim,
/// mrope_sections, num_heads, eps, the shapes of keys, queries, positions, caches, weights and
/// cos_sin (`wrong-shape`), positions (`out-of-range`), slots (`duplicate`), and ring blocks
/// shared by two requests of the step (`ring_block_table` / `shared-block`, docs/decisions.md).
[[nodiscard]] Status validate_step(const StepInput& input, const StepCaches& caches, Error* error);

}  // namespace qsa
