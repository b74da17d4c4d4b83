#pragma once
// `--float-tolerance exact|row-ulp:N` (SPEC 6's declared tolerance mode) on every command that
// checks a backend: one option text, one parse, one error.

#include <string>

#include <CLI/CLI.hpp>

#include "qsa/engine/float_comparator.hpp"
#include "qsa/status.hpp"

namespace qsa::cli {

/// Adds the option to `command`, storing its text in `text` (default "exact").
void add_float_tolerance_option(CLI::App* command, std::string* text);

/// Parses the option's text into `tolerance`; false with `error` naming the flag and the rule.
bool parse_float_tolerance_flag(const std::string& text, traces::FloatTolerance* tolerance, Error* error);

}  // namespace qsa::cli
