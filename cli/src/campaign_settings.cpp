#include "campaign_settings.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "number_options.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/simulator.hpp"
#include "qsa/traces/step_digest.hpp"

namespace qsa::cli {

ShardSpec parse_shard_option(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw traces::InputError(
        Error{"--shard", -1, "not-a-shard", "'" + text.substr(0, 40) + "' is not K/N (shard K of N, e.g. 2/4)"});
  ShardSpec shard;
  shard.count = parse_integer_option("--shard", text.substr(slash + 1), 1, int64_t{1} << 16);
  shard.index = parse_integer_option("--shard", text.substr(0, slash), 1, shard.count);
  return shard;
}

std::vector<int> parse_devices_option(const std::string& text, int available) {
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < available; ++d) devices.push_back(d);
    if (devices.empty())
      throw traces::InputError(Error{"--devices", -1, "no-device", "--devices all: this machine has no CUDA device"});
    return devices;
  }
  std::set<int> seen;
  size_t from = 0;
  for (int64_t position = 0;; ++position) {
    const size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    int64_t device = 0;
    try {
      device = parse_integer_option("--devices", item, 0, 1023);
    } catch (const traces::InputError& e) {
      Error error = e.error();
      error.index = position;
      throw traces::InputError(error);
    }
    if (!seen.insert(static_cast<int>(device)).second)
      throw traces::InputError(
          Error{"--devices", position, "duplicate", "device " + item + " is listed twice; list each device once"});
    devices.push_back(static_cast<int>(device));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  // The list is read whole first, so a typo is named before what this machine lacks.
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i] >= available)
      throw traces::InputError(Error{"--devices", static_cast<int64_t>(i), "no-device",
                                     "device " + std::to_string(devices[i]) + " does not exist: this machine has " +
                                         std::to_string(available) + " CUDA device(s)"});
  return devices;
}

int device_of_worker(const std::vector<int>& devices, int worker) {
  if (devices.empty()) return -1;
  return devices[static_cast<size_t>(worker) % devices.size()];
}

std::string settings_hash(const CampaignSettings& s) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const CampaignJob& job : s.jobs) jobs.push_back({job.workload.name, job.seed, job.steps});
  nlohmann::json canonical = {{"backends", s.backends},
                                    {"jobs", jobs},
                                    {"requests_csv", s.requests_csv_text},
                                    {"seed", s.seed},
                                    {"batches", s.batches},
                                    {"float_tolerance", s.float_tolerance},
                                    {"max_findings", s.max_findings}};
  if (!s.requests_log_text.empty()) canonical["requests_log"] = s.requests_log_text;  // absent: hashes stay as before
  if (!s.geometry.empty()) canonical["geometry"] = s.geometry;  // so hashes without it stay as they were
  // The same jobs give other scenarios under another simulator (version 1 had no key).
  if (traces::kSimulatorVersion > 1) canonical["simulator"] = traces::kSimulatorVersion;
  const std::string text = canonical.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return traces::digest_hex(traces::digest_bytes(text.data(), text.size()));
}

}  // namespace qsa::cli
