#pragma once
// The sharing figures of check's report (what the prefix hits shared, the evictions: `sharing`) and
// the request log's figures (`check --requests`, or any campaign whose workload replays a log): the
// log as logged (request_log_figures_json) beside what the campaign exercised (its coverage and
// the log-implied reuse it reused), in the text report and the JSON (docs/json-schema.md).
// Kept apart from check_report.cpp: the report calls the writers and the reader the readers.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "qsa/engine/check_report.hpp"

namespace qsa::engine {

/// What the campaign did with a replayed log's requests: its scenario runs (every backend's) and
/// their coverage, so a merge, which sums the shards' coverage and joins their jobs, states the whole.
nlohmann::json exercised_json(const CheckReport& report);

/// `sharing` of the JSON report: hits, shared blocks and positions, hits and blocks on finished
/// requests' blocks, the other prefix-hit classes, the hit depths and the evictions.
nlohmann::json sharing_json(const CheckReport& report);
/// Reads `sharing` back into `report` (merge). Throws InputError naming the field.
void read_sharing(const nlohmann::json& sharing, const std::string& context, CheckReport* report);

/// `request_log` of the JSON report: {"log": ..., "exercised": ...}; null when no log was replayed.
nlohmann::json check_log_figures_json(const CheckReport& report);


/// Reads `request_log` of a report back (merge): the log's figures, checked field by field, and the
/// log-implied reuse the campaign exercised (into `report`). Throws InputError naming the field.
nlohmann::json read_check_log_figures(const nlohmann::json& request_log, const std::string& context,
                                      CheckReport* report);

}  // namespace qsa::engine
