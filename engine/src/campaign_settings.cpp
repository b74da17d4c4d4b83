#include "qsa/engine/campaign_settings.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "qsa/traces/simulator.hpp"
#include "qsa/traces/step_digest.hpp"

namespace qsa::engine {

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

}  // namespace qsa::engine
