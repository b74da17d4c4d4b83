#pragma once
// The whole command line: parse, validate, then (unless parse_only) run the command, mapping every
// error to exit 2 with one JSON line on stdout. main() calls it; fuzz_command_line calls it with
// parse_only, which stops before any work, any input read and any file write.

#include "commands.hpp"

namespace qsa::cli {

// Every command, option and flag of qsacheck, on app; a parsed command stores its work in *job.
// The completion scripts and the man page are generated from this definition (cli/tools/).
void define_command_line(CLI::App& app, CommandJob* job);

int run_command_line(int argc, const char* const* argv, bool parse_only);

}  // namespace qsa::cli
