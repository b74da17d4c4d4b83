#pragma once
// The input space in text (`check`, `input-space`): the short table, the known-gaps comparison, and
// the key lists of --known-gaps and --allow-excluded.

#include <cstdio>
#include <set>
#include <string>

#include "qsa/engine/input_space_coverage.hpp"

namespace qsa::cli {

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
