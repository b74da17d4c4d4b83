#include "scenario_files.hpp"

#include <sys/stat.h>

#include <set>
#include <sstream>

#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/limits.hpp"
#include "qsa/traces/scenario_state.hpp"

namespace qsa::cli {

std::unique_ptr<std::istream> CheckedScenarioFile::open() const {
  if (!held) return traces::open_scenario_stream(path);
  return std::make_unique<std::istringstream>(text);
}

std::vector<CheckedScenarioFile> check_scenario_files(const std::vector<std::string>& paths) {
  std::vector<CheckedScenarioFile> files;
  for (const std::string& path : paths) {
    try {
      CheckedScenarioFile checked;
      checked.path = path;
      struct stat info {};
      checked.held = path == "-" || path.empty() || stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode);
      if (checked.held) checked.text = traces::read_input_text(path);  // its errors name the path
      const std::unique_ptr<std::istream> in = checked.open();
      traces::ScenarioReader reader(*in);
      checked.config = reader.config();
      checked.float_tolerance = reader.float_tolerance();
      traces::ScenarioState state(checked.config);
      std::set<int64_t> requests;
      traces::StepRecord step;
      std::optional<traces::StepDigest> digest;
      while (reader.next(&step, &digest)) {
        state.apply(step, reader.steps() - 1);
        for (const traces::ChunkRecord& chunk : step.chunks) requests.insert(chunk.request);
        checked.digests = digest.has_value();
      }
      checked.steps = reader.steps();
      checked.requests = static_cast<int64_t>(requests.size());
      files.push_back(std::move(checked));
    } catch (const InputError& e) {
      Error error = e.error();
      error.message = path + ": " + error.message;
      throw InputError(error);
    }
  }
  return files;
}

}  // namespace qsa::cli
