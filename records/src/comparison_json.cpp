#include "qsa/records/comparison_json.hpp"

namespace qsa::records {

nlohmann::ordered_json comparison_json(const Comparison& comparison, const std::string& baseline,
                                       const std::string& candidate, const CompareOptions& options) {
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const BenchmarkChange& c : comparison.changes)
    changes.push_back({{"key", c.key},
                       {"baseline_ns", c.baseline_ns},
                       {"candidate_ns", c.candidate_ns},
                       {"change", c.change},
                       {"p_value", c.p_value},
                       {"baseline_repetitions", c.baseline_repetitions},
                       {"candidate_repetitions", c.candidate_repetitions},
                       {"verdict", to_string(c.verdict)}});
  return {{"schema_version", 1},
          {"baseline", baseline},
          {"candidate", candidate},
          {"alpha", options.alpha},
          {"threshold", options.threshold},
          {"regressions", comparison.regressions},
          {"geomean_ratio", comparison.geomean_ratio},
          {"changes", std::move(changes)},
          {"missing", comparison.missing},
          {"added", comparison.added},
          {"warnings", comparison.warnings}};
}

}  // namespace qsa::records
