#pragma once
// Runs the qsacheck binary as a user would, capturing stdout and the exit code.

#include <string>

namespace qsa::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

/// Runs `qsacheck <args>` with `stdin_text` on standard input (stderr is discarded).
CommandResult run_qsacheck(const std::string& args, const std::string& stdin_text = "");

}  // namespace qsa::testing
