#pragma once
// `--backend worker:"COMMAND ARGS"`: the command is split into arguments here, by a small and
// stated subset of the POSIX shell's quoting (docs/worker-protocol.md, "The command"), and run
// without a shell: no variables, globbing, redirection or pipes.

#include <string>
#include <vector>

#include "qsa/status.hpp"

namespace qsa::backends {

inline constexpr const char* kWorkerPrefix = "worker:";
inline constexpr const char* kIsolatedPrefix = "isolated:";

/// Splits `command` into arguments: blanks (space, tab, newline) separate arguments; inside
/// '...' every character is literal; inside "..." a backslash escapes only " and \ (else it is
/// kept); outside quotes a backslash makes the next character literal; quoted parts join the
/// characters beside them ('a'"b"c is one argument, abc); '' is an empty argument. An empty
/// command, an unterminated quote or a trailing backslash is kInvalidInput (field "backend",
/// rule "bad-worker-command", index: the byte offset). Example: `python3 'my worker.py' --bug=x`
/// -> {"python3", "my worker.py", "--bug=x"}.
Status split_worker_command(const std::string& command, std::vector<std::string>* argv, Error* error);

/// The command written back so that split_worker_command() gives `argv` again (each argument
/// single-quoted when it holds anything but [A-Za-z0-9_./:=@%+,-]); also right for a POSIX shell.
std::string join_worker_command(const std::vector<std::string>& argv);

}  // namespace qsa::backends
