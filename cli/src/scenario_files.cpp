#include "scenario_files.hpp"

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_state.hpp"

namespace qsa::cli {

std::vector<NamedScenarioFile> read_scenario_files(const std::vector<std::string>& paths) {
  std::vector<NamedScenarioFile> files;
  for (const std::string& path : paths) {
    try {
      NamedScenarioFile named{path, traces::read_scenario_file(path)};
      traces::ScenarioState state(named.file.scenario.config);
      for (size_t i = 0; i < named.file.scenario.steps.size(); ++i)
        state.apply(named.file.scenario.steps[i], static_cast<int64_t>(i));
      files.push_back(std::move(named));
    } catch (const traces::InputError& e) {
      Error error = e.error();
      error.message = path + ": " + error.message;
      throw traces::InputError(error);
    }
  }
  return files;
}

}  // namespace qsa::cli
