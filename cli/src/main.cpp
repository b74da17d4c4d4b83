// qsacheck: verifies implementations of the QSA side caches against the contract (docs/spec.md).
// Exit codes: 0 agreement, 1 mismatch or broken invariant, 2 bad usage or bad input (one JSON
// line on stdout), 3 what ran passed but something did not run or the run was stopped.

#include <csignal>

#include "command_line.hpp"
#include "output.hpp"

int main(int argc, char** argv) {
  // A closed pipe on stdout (`qsacheck check | head`) is a write error that finish_standard_output
  // reports, not a silent death by SIGPIPE; child processes get the default back.
  std::signal(SIGPIPE, SIG_IGN);
  qsa::cli::end_on_out_of_memory();
  const int code = qsa::cli::run_command_line(argc, argv, /*parse_only=*/false);
  return qsa::cli::finish_standard_output(code);
}
