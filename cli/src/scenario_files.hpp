#pragma once
// Reading the scenario files a command was given, all of them before any is run, so that a bad
// file is exit 2 with nothing else printed (not a half-written report followed by an error).

#include <string>
#include <vector>

#include "qsa/traces/scenario_file.hpp"

namespace qsa::cli {

struct NamedScenarioFile {
  std::string path;
  traces::ScenarioFile file;
};

/// Reads every file and steps its requests' bookkeeping (no backend) to find a step that
/// contradicts SPEC 7 (a chunk that does not continue its request, ...). Throws InputError whose
/// message starts with the path.
std::vector<NamedScenarioFile> read_scenario_files(const std::vector<std::string>& paths);

}  // namespace qsa::cli
