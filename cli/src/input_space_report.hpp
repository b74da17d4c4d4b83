#pragma once
// The `input_space` section of a check report (docs/json-schema.md): per inventory row its count,
// extremes and edges; read back for `qsacheck merge`; and the short table of the text report.

#include <cstdio>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "qsa/engine/input_space_coverage.hpp"

namespace qsa::cli {

/// {"classes", "reached", "edges_missed", "rows": [{"id", "spec", "inputs", "count", "steps", "reached",
/// and for a ranged row "min", "max", "lo", "hi", "edges_hit", "edges_missed"}]}.
nlohmann::json input_space_to_json(const engine::InputSpaceCoverage& coverage);
/// The counts of such a section. Throws InputError naming the field: a row id the inventory does
/// not have (rule "unknown-class": a report of another version), a count or extreme of the wrong type.
engine::InputSpaceCoverage input_space_from_json(const nlohmann::json& json, const std::string& context);
/// "input space: 80/108 classes reached ...", then (with `list`) the unreached rows by name and the
/// rows whose legal edges were missed; without it, where to find them when some are.
void print_input_space(const engine::InputSpaceCoverage& coverage, std::FILE* out, bool list = true);
/// Whether the gaps of `coverage` (InputSpaceCoverage::gap_keys) are exactly `known`; prints each
/// new gap and each known key that is no gap now (reached, or a typo), then the counts.
bool matches_known_gaps(const engine::InputSpaceCoverage& coverage, const std::set<std::string>& known,
                        const std::string& list_name, std::FILE* out);

/// The keys of a list file (--known-gaps, --allow-excluded): one per line, blank lines and
/// # comments skipped. A file that cannot be read is bad input naming `flag`.
std::set<std::string> read_key_list(const char* flag, const std::string& path);

}  // namespace qsa::cli
