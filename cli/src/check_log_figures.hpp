#pragma once
// The request log's figures in check's report (`check --requests`, or any campaign whose workload
// replays a log): the log as logged (request_log_figures_json) beside what the campaign exercised
// (its coverage), in the text report and as `request_log` in the JSON (docs/json-schema.md).
// Kept apart from check_report.cpp: the report calls these two and the reader the third.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "check_report.hpp"

namespace qsa::cli {

/// `request_log` of the JSON report: {"log": ..., "exercised": ...}; null when no log was replayed.
nlohmann::json check_log_figures_json(const CheckReport& report);

/// The log's line and what the campaign exercised, after the coverage; nothing without a log.
void print_check_log_figures(const CheckReport& report, std::FILE* out);

/// Reads `request_log` of a report back (merge): the log's figures, checked field by field.
/// Throws InputError naming the field.
nlohmann::json read_check_log_figures(const nlohmann::json& request_log, const std::string& context);

}  // namespace qsa::cli
