#pragma once
// The one command line every entry point prints to replay a failure: `qsacheck check`'s summary
// and report, the JUnit details, the property suite and the fuzz targets. It pastes into a POSIX
// shell as it is, whatever the backend's name holds (a worker's command has blanks and quotes).

#include <string>

#include "qsa/traces/float_tolerance.hpp"

namespace qsa::engine {

/// `qsacheck replay --backend NAME [--float-tolerance MODE] FILE`, each word quoted where a shell
/// needs it (traces::shell_words); the tolerance is named unless it is exact.
/// Example: replay_command("worker:python3 w.py", "r.scenario")
///   == "qsacheck replay --backend 'worker:python3 w.py' r.scenario".
std::string replay_command(const std::string& backend, const std::string& file,
                           const traces::FloatTolerance& tolerance = {});

}  // namespace qsa::engine
