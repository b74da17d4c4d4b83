// qsacheck: verifies implementations of the QSA side caches against the contract (docs/spec.md).
// Exit codes: 0 agreement, 1 mismatch or broken invariant, 2 bad usage or bad input (one JSON
// line on stdout), 3 what ran passed but something did not run or the run was stopped.

#include "command_line.hpp"

int main(int argc, char** argv) { return qsa::cli::run_command_line(argc, argv, /*parse_only=*/false); }
