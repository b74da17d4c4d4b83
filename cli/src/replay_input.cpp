#include "replay_input.hpp"

#include "output.hpp"
#include "qsa/engine/check_engine.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

bool is_metadata_input_file(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

MetadataInputFile read_metadata_input_file(const std::string& path) {
  return {path, traces::metadata_input_from_json(traces::parse_json(read_input(path)))};
}

int replay_metadata_input(const MetadataInputFile& file, Backend& backend, std::ostream& out, nlohmann::json* result) {
  const MetadataInput& input = file.input;
  out << "replaying " << file.path << ": one " << to_string(input.cache.kind) << " metadata input, "
      << input.batch.num_requests() << " requests, " << input.batch.num_actual_tokens << " rows on " << backend.name()
      << ", against the reference" << std::endl;
  *result = {{"file", file.path}, {"metadata_input", true}};
  if (auto finding = engine::check_metadata_against_reference(backend, input)) {
    out << "FAIL " << finding->to_string() << std::endl;
    (*result)["passed"] = false;
    (*result)["failure"] = finding->to_string();
    return kExitMismatch;
  }
  out << "passed: the backend agrees with the reference" << std::endl;
  (*result)["passed"] = true;
  return kExitOk;
}

}  // namespace qsa::cli
