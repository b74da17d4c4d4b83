#pragma once
// Reads back the JSON report of `qsacheck check --json` (what report_to_json() writes), for
// `qsacheck merge`. Every field is checked; a malformed report is an InputError naming the field.

#include <string>

#include <nlohmann/json.hpp>

#include "check_report.hpp"

namespace qsa::cli {

/// The report `json` holds; field names in errors are prefixed by `context` (e.g. "files[2].").
CheckReport report_from_json(const nlohmann::json& json, const std::string& context);

}  // namespace qsa::cli
