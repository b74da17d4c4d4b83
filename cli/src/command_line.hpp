#pragma once
// The whole command line: parse, validate, then (unless parse_only) run the command, mapping every
// error to exit 2 with one JSON line on stdout. main() calls it; fuzz_command_line calls it with
// parse_only, which stops before any work, any input read and any file write.

namespace qsa::cli {

int run_command_line(int argc, const char* const* argv, bool parse_only);

}  // namespace qsa::cli
