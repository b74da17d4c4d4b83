#pragma once
// What two reports of one campaign share: the report without its "run" object (host, date,
// threads, devices, merged shards) and without every "seconds" and "device" field.
// docs/scale-out.md gives the same with jq.

#include <nlohmann/json.hpp>

namespace qsa::testing {

inline nlohmann::json without_run_facts(nlohmann::json report) {
  if (report.is_object()) {
    report.erase("run");
    report.erase("seconds");
    report.erase("device");
    for (auto& [key, value] : report.items()) value = without_run_facts(value);
  } else if (report.is_array()) {
    for (auto& value : report) value = without_run_facts(value);
  }
  return report;
}

}  // namespace qsa::testing
