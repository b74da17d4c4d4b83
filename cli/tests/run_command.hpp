#pragma once
// Runs the qsacheck binary as a user would, capturing stdout and the exit code; scratch folders
// and file reading for the command tests.

#include <string>

namespace qsa::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

/// Runs `qsacheck <args>` with `stdin_text` on standard input (stderr is discarded).
CommandResult run_qsacheck(const std::string& args, const std::string& stdin_text = "");

/// A new empty folder under /tmp for one test's files.
std::string temp_dir();

/// The whole text of a file ("" when it cannot be read).
std::string read_file(const std::string& path);

}  // namespace qsa::testing
