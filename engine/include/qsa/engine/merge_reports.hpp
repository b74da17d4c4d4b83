#pragma once
// `qsacheck merge`: the shards' reports of one campaign joined into the report the unsharded
// `--keep-going` run writes (equal once the "run" object and every "seconds" and "device" field
// are removed): rows and coverage summed, findings in campaign order under the same cap, jobs in
// job order, float statistics combined as one sequential run would.

#include <string>
#include <vector>

#include "qsa/engine/check_report.hpp"

namespace qsa::engine {

struct ShardReport {
  std::string file;
  CheckReport report;
};

/// The merged report. Throws InputError {field, index: the position of the offending file in
/// `shards` (for "missing-shard": the first missing K), rule} when the reports are not the shards of one campaign:
/// "not-keep-going" (a run that stopped at its first finding), "different-version", "different-settings",
/// "different-shard-count", "duplicate-shard", "missing-shard", "different-checks", "duplicate-job", "missing-job".
CheckReport merge_reports(const std::vector<ShardReport>& shards);

}  // namespace qsa::engine
