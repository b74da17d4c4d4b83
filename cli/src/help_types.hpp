#pragma once
// --help names the value of a numeric option (INT, UINT64, SECONDS, K/N, FROM:TO), not TEXT: those
// options are read as text to be parsed with their ranges (number_options.hpp), which CLI11 would
// show as TEXT.

#include <CLI/CLI.hpp>

namespace qsa::cli {

/// Sets the value type --help shows on every numeric option of app and its subcommands.
void name_value_types(CLI::App& app);

}  // namespace qsa::cli
