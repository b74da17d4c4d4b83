#pragma once
// How a campaign is split (--shard K/N) and the hash of every setting that shapes its jobs: shards of one campaign share the hash, and
// `qsacheck merge` refuses reports whose hashes differ.

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/engine/campaign_jobs.hpp"

namespace qsa::engine {

/// K/N of --shard: job i of the unsharded campaign belongs to shard (i mod N) + 1.
struct ShardSpec {
  int64_t index = 1;  // K, 1 ... N
  int64_t count = 1;  // N, 1 ... 2^16
  bool owns(int64_t job) const { return job % count == index - 1; }
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// The device of job thread `worker` (0 ... --jobs - 1) under --devices `devices`: round robin, so
/// the threads, and the scenario jobs they take from the shared queue, spread evenly (each device
/// gets --jobs / devices threads, the first --jobs mod devices one more); -1 without --devices.
/// Each thread keeps its backend instance, with its own stream, on that device.
int device_of_worker(const std::vector<int>& devices, int worker);

/// What shapes the jobs of a campaign: the backends, the job list (workload, seed, steps), the
/// batches, the float comparison and the findings cap. The shard, --jobs, --devices and output
/// paths are left out, so every shard of a campaign has the same hash.
struct CampaignSettings {
  std::vector<std::string> backends;
  std::vector<CampaignJob> jobs;
  std::string requests_csv_text;  // the CSV's content, so two files of one name differ
  std::string requests_log_text;  // --requests: the replay options, then the log's content
  uint64_t seed = 0;
  int64_t batches = 0;
  std::string float_tolerance;
  int64_t max_findings = 0;
  std::string geometry;  // traces::GeometryChoice::to_string(); empty: each workload's own
};

/// traces::digest_bytes (FORMAT.md) over the settings as canonical JSON: 16 hex digits.
std::string settings_hash(const CampaignSettings& settings);

}  // namespace qsa::engine
