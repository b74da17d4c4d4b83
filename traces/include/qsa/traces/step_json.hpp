#pragma once
// The JSON encoding of one step update (`qsacheck eval step`, docs/json-schema.md): inputs and the
// caches' rows set before the step in, non-zero cache rows and q_out out. bf16 values travel as
// their 16-bit patterns and fp8 values as 8-bit patterns, so nothing is lost in decimal.

#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/reference/step_update.hpp"
#include "qsa/step_types.hpp"

namespace qsa::traces {

struct StepCase {
  StepInput input;
  StepCaches caches;  // dense layouts; rows not listed in the JSON are zero
};

/// Throws InputError naming the field, index and rule for JSON that does not fit the schema. The two
/// caches together are bounded by max_cache_bytes() (limits.hpp), checked before allocating.
StepCase step_case_from_json(const nlohmann::json& json);
nlohmann::json step_case_to_json(const StepCase& step_case);

/// {"status": "ok", "step_status", "ring": [...], "compressed": [...], "q_out": [...]}, listing
/// every cache row that is non-zero, in block-then-row order; `pooled` adds "pooled".
nlohmann::json step_result_to_json(const StepInput& input, const StepCaches& caches, const StepOutput& output,
                                   const std::vector<reference::PooledGroup>* pooled = nullptr);

}  // namespace qsa::traces
