#pragma once
// Finding and running an external program (gnuplot) without a shell.

#include <string>
#include <vector>

namespace qsa::records {

/// The path of `name` found on $PATH (or `name` itself when it holds a '/' and is executable);
/// "" when absent.
std::string find_program(const std::string& name);

/// Runs argv[0] with the arguments, stdin from /dev/null, stdout and stderr appended to `log_path`;
/// returns the exit status (-1 when it could not start or was killed by a signal).
int run_program(const std::vector<std::string>& argv, const std::string& log_path);

}  // namespace qsa::records
