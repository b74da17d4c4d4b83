#pragma once
// The one validation of SPEC 1.4 that every implementation calls before computing anything.

#include "qsa/status.hpp"
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

}  // namespace qsa
