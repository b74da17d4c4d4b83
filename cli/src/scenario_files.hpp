#pragma once
// Reading the scenario files a command was given, all of them before any is run, so that a bad
// file is exit 2 with nothing else printed (not a half-written report followed by an error). Each
// file is read twice as a stream, once to check it and once to run it, so that a replay holds one
// step at a time, whatever the file's length (docs/limits.md).

#include <memory>
#include <string>
#include <vector>

#include "qsa/traces/scenario_file.hpp"

namespace qsa::cli {

/// A checked scenario file: its configuration and what its steps hold, not the steps.
struct CheckedScenarioFile {
  std::string path;
  traces::ScenarioConfig config;
  traces::FloatTolerance float_tolerance;
  int64_t steps = 0;
  int64_t requests = 0;  // distinct request ids
  bool digests = false;
  bool held = false;  // not a regular file (standard input, a FIFO): read once, whole, into `text`
  std::string text;
  /// A stream over the file from its start again.
  std::unique_ptr<std::istream> open() const;
};

/// Reads every file and steps its requests' bookkeeping (no backend) to find a step that
/// contradicts SPEC 7 (a chunk that does not continue its request, ...). Throws InputError whose
/// message starts with the path.
std::vector<CheckedScenarioFile> check_scenario_files(const std::vector<std::string>& paths);

}  // namespace qsa::cli
