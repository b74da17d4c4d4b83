#pragma once
// Words written as one line of a POSIX shell command: the printed replay commands (a worker
// backend's name holds blanks and quotes) and the worker command a worker backend is named by,
// which the worker loader splits back with the same quoting (docs/worker-protocol.md).

#include <string>
#include <vector>

namespace qsa::traces {

/// The words joined by blanks, each single-quoted when it holds anything but
/// [A-Za-z0-9_./:=@%+,-] (an empty word too), a quote inside written '\''.
/// Example: shell_words({"worker:python3 w.py", "a b"}) == "'worker:python3 w.py' 'a b'".
std::string shell_words(const std::vector<std::string>& words);

}  // namespace qsa::traces
