#include "replay_input.hpp"

#include <iostream>

#include "output.hpp"
#include "qsa/traces/check_engine.hpp"
#include "qsa/traces/json_codec.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

bool is_metadata_input_file(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

int replay_metadata_input(const std::string& path, Backend& backend) {
  const MetadataInput input = traces::metadata_input_from_json(traces::parse_json(read_input(path)));
  std::cout << "replaying " << path << ": one " << to_string(input.cache.kind) << " metadata input, "
            << input.batch.num_requests() << " requests, " << input.batch.num_actual_tokens << " rows on "
            << backend.name() << ", against the reference" << std::endl;
  if (auto finding = traces::check_metadata_against_reference(backend, input)) {
    std::cout << "FAIL " << finding->to_string() << std::endl;
    return kExitMismatch;
  }
  std::cout << "passed: the backend agrees with the reference" << std::endl;
  return kExitOk;
}

}  // namespace qsa::cli
