#pragma once
// `bench compare --json`: the comparison as JSON for CI (docs/json-schema.md, "bench compare").

#include <nlohmann/json.hpp>

#include "qsa/records/comparison.hpp"

namespace qsa::records {

/// {"schema_version", "baseline", "candidate", "alpha", "threshold", "regressions", "geomean_ratio",
///  "changes": [{"key", "baseline_ns", "candidate_ns", "change", "p_value", "baseline_repetitions",
///  "candidate_repetitions", "verdict"}], "missing", "added", "warnings"}
nlohmann::ordered_json comparison_json(const Comparison& comparison, const std::string& baseline,
                                       const std::string& candidate, const CompareOptions& options);

}  // namespace qsa::records
