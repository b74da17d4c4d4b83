#pragma once
// The `input_space` section of a check report (docs/json-schema.md): per inventory row its count,
// extremes and edges; read back for `qsacheck merge`; and the short table of the text report.

#include <cstdio>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/engine/input_space_coverage.hpp"

namespace qsa::engine {

/// The inventory rows that were reached but missed a legal edge of their range.
int edges_missed(const engine::InputSpaceCoverage& coverage);

/// {"classes", "reached", "edges_missed", "rows": [{"id", "spec", "inputs", "count", "steps", "reached",
/// and for a ranged row "min", "max", "lo", "hi", "edges_hit", "edges_missed"}]}.
nlohmann::json input_space_to_json(const engine::InputSpaceCoverage& coverage);
/// The counts of such a section. Throws InputError naming the field: a row id the inventory does
/// not have (rule "unknown-class": a report of another version), a count or extreme of the wrong type.
engine::InputSpaceCoverage input_space_from_json(const nlohmann::json& json, const std::string& context);


}  // namespace qsa::engine
