#pragma once
// Reads back the JSON report of `qsacheck check --json` (what report_to_json() writes), for
// `qsacheck merge`. Every field is checked; a malformed report is an InputError naming the field.

#include <string>

#include <nlohmann/json.hpp>

#include "qsa/engine/check_report.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::engine {

/// The report `json` holds; field names in errors are prefixed by `context` (e.g. "files[2].").
/// The largest count (rows, steps, cases, findings, ...) a shard's report may hold: 2^16 shards of
/// it still sum inside int64, so a merge cannot wrap (2^63-1 rows and negative findings
/// were accepted and summed). A real campaign is about 2^30 below it.
inline constexpr int64_t kMaxReportCount = int64_t{1} << 47;

CheckReport report_from_json(const nlohmann::json& json, const std::string& context);

/// A count field of a report: an integer in [0, kMaxReportCount], else InputError naming it.
int64_t report_count(traces::JsonObjectReader& r, const char* field);

}  // namespace qsa::engine
