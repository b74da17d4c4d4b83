#include "qsa/engine/check_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <set>

#include "qsa/engine/check_log_figures.hpp"
#include "qsa/engine/exit_codes.hpp"
#include "qsa/engine/input_space_report.hpp"

namespace qsa::engine {

int64_t campaign_order(size_t backend_index, CampaignPhase phase, int64_t index) {
  // 2^40 positions per phase: more than any batch count (2^30) or job count.
  return ((static_cast<int64_t>(backend_index) * 5 + static_cast<int64_t>(phase)) << 40) + index;
}

RunFacts run_facts_now() {
  RunFacts facts;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) facts.host = name;
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  facts.started_at = date;
  return facts;
}

bool CheckReport::failed() const {
  if (!exclusions_beyond_allowed.empty()) return true;  // --allow-excluded
  for (const CheckRow& r : rows)
    if (r.failures > 0) return true;
  return false;
}

int CheckReport::exit_code() const {
  if (failed()) return kExitMismatch;
  return not_run.empty() ? kExitOk : kExitIncomplete;
}

CheckRow& CheckReport::add(const std::string& check, const std::string& backend) {
  rows.push_back(CheckRow{check, backend, 0, 0, 0, ""});
  return rows.back();
}

std::vector<std::string> untested_classes(const CheckReport& r) {
  std::vector<std::string> out;
  for (const engine::InputClass& c : engine::input_classes()) {
    bool excluded = false;
    for (const DeclaredLimits& d : r.declared_limits) excluded = excluded || d.excluded_input_space.at(c.which).count > 0;
    if (excluded && r.input_space.at(c.which).count == 0) out.emplace_back(c.id);
  }
  return out;
}

nlohmann::json declared_limits_to_json(const CheckReport& r) {
  nlohmann::json all = nlohmann::json::array();
  for (const DeclaredLimits& d : r.declared_limits) {
    nlohmann::json declared = nlohmann::json::object();
    for (const auto& [key, value] : d.declared) declared[key] = value;
    nlohmann::json classes = nlohmann::json::array();
    for (const engine::InputClass& c : engine::input_classes())
      if (const int64_t n = d.excluded_input_space.at(c.which).count; n > 0)
        classes.push_back({{"class", c.id}, {"excluded", n}, {"tested", r.input_space.at(c.which).count}});
    all.push_back({{"backend", d.backend},
                   {"declared", declared},
                   {"deviations", d.deviations},
                   {"excluded", d.excluded},
                   {"declined", d.declined},
                   {"reasons", d.reasons},
                   {"excluded_classes", classes},
                   {"excluded_input_space", input_space_to_json(d.excluded_input_space)}});
  }
  return all;
}

void add_declared_limits(const DeclaredLimits& from, std::vector<DeclaredLimits>* into) {
  auto it = std::find_if(into->begin(), into->end(), [&](const DeclaredLimits& d) { return d.backend == from.backend; });
  if (it == into->end()) {
    into->push_back(from);
    return;
  }
  if (it->declared.empty()) it->declared = from.declared;
  if (it->deviations.empty()) it->deviations = from.deviations;
  for (const auto& [what, n] : from.excluded) it->excluded[what] += n;
  it->declined += from.declined;
  for (const auto& [why, n] : from.reasons) it->reasons[why] += n;
  it->excluded_input_space += from.excluded_input_space;
}

bool checks_no_kernel(const CheckReport& r) { return r.backends.size() == 1 && r.backends[0] == "reference"; }


std::string no_kernel_note(const CheckReport& r) {
  std::string why;
  for (const std::string& line : r.unavailable) why += (why.empty() ? "" : "; ") + line;
  return "no kernel checked" + (why.empty() ? std::string() : " (" + why + ")") +
         "; to check one pass --backend cuda on a GPU machine, --backend plugin:PATH.so or "
         "--backend worker:\"python3 my_worker.py\"";
}


std::string verdict_text(const CheckReport& r) {
  const int code = r.exit_code();
  std::string backends;
  for (const std::string& b : r.backends) backends += (backends.empty() ? "" : ", ") + b;
  // The reference checks itself only against the oracle and the invariants: a green run of it
  // alone says nothing about a kernel, and the verdict line says so.
  const std::string which = checks_no_kernel(r) ? "reference only: checked against the oracle and invariants; " +
                                                      no_kernel_note(r)
                                                : "backends checked: " + backends;
  // A tolerance-mode run is not an exact result: the verdict says under which comparison it holds.
  const std::string mode =
      r.float_tolerance.exact() ? "" : "; float comparison " + r.float_tolerance.to_string() + ", not bit for bit";
  const std::string stopped = r.stopped_by.empty() ? "" : ", stopped by " + r.stopped_by;
  if (code == kExitMismatch) return "FAILED (" + which + mode + stopped + ")";
  if (code == kExitOk) return "passed (" + which + mode + ")";
  return "passed what ran; some checks did not run (exit 3; " + which + mode + stopped + ")";
}

namespace {

// The names in `all` that no step counted (empty when the report counted none: no scenario ran).
std::vector<std::string> not_reached(const std::map<std::string, int64_t>& steps, const std::vector<std::string>& all) {
  std::vector<std::string> missing;
  if (steps.empty()) return missing;
  for (const std::string& name : all)
    if (steps.count(name) == 0) missing.push_back(name);
  return missing;
}

}  // namespace


std::vector<std::string> kernel_paths_not_reached(const CheckReport& r) {
  return not_reached(r.kernel_path_steps, r.all_kernel_paths);
}


std::vector<std::string> grids_not_reached(const CheckReport& r) {
  return not_reached(r.grid_steps, r.all_grids);
}

nlohmann::json coverage_to_json(const traces::Coverage& c) {
  return {{"steps", c.steps},
          {"rows", c.rows},
          {"requests", c.requests},
          {"groups_closed", c.groups_closed},
          {"ring_wraps", c.ring_wraps},
          {"drafts_rejected", c.drafts_rejected},
          {"preemptions", c.preemptions},
          {"prefix_hits", c.prefix_hits},
          {"padded_steps", c.padded_steps},
          {"negative_common_slots", c.negative_common_slots},
          {"mrope_steps", c.mrope_steps},
          {"fp8_steps", c.fp8_steps}};
}

nlohmann::json report_to_json(const CheckReport& r) {
  nlohmann::json j;
  j["schema_version"] = kCheckReportSchemaVersion;
  j["seed"] = r.seed;
  j["backends"] = r.backends;
  j["exit_code"] = r.exit_code();
  j["passed"] = !r.failed();
  j["float_tolerance"] = r.float_tolerance.to_string();
  if (!r.float_statistics.empty()) {
    j["float_statistics"] = nlohmann::json::object();
    for (const auto& [backend, stats] : r.float_statistics)
      j["float_statistics"][backend] = {{"cache.compressed", engine::to_json(stats.compressed)},
                                        {"q_out", engine::to_json(stats.q_out)}};
  }
  if (!r.float_worst_jobs.empty()) {
    for (size_t b = 0; b < r.float_worst_jobs.size() && b < r.float_statistics.size(); ++b) {
      auto& entry = j["float_statistics"][r.float_statistics[b].first];
      entry["cache.compressed"]["worst_job"] = r.float_worst_jobs[b].first;
      entry["q_out"]["worst_job"] = r.float_worst_jobs[b].second;
    }
  }
  j["checks"] = nlohmann::json::array();
  for (const CheckRow& row : r.rows)
    j["checks"].push_back({{"check", row.check},
                           {"backend", row.backend},
                           {"cases", row.cases},
                           {"failures", row.failures},
                           {"seconds", row.seconds},
                           {"first_failure", row.first_failure},
                           {"first_failure_order", row.first_failure_order}});
  const CampaignIdentity& id = r.campaign;
  j["campaign"] = {{"qsacheck_version", id.tool_version},
                   {"commit", id.commit},
                   {"spec_version", id.spec_version},
                   {"settings_hash", id.settings_hash},
                   {"shard", {{"index", id.shard_index}, {"count", id.shard_count}}},
                   {"keep_going", id.keep_going},
                   {"max_findings", id.max_findings},
                   {"jobs_total", id.jobs_total}};
  j["findings_total"] = r.findings_total;
  j["findings_not_listed"] = r.findings_total - static_cast<int64_t>(r.findings.size());
  j["findings"] = nlohmann::json::array();
  for (const CheckFinding& f : r.findings)
    j["findings"].push_back({{"order", f.order},
                             {"backend", f.backend},
                             {"check", f.check},
                             {"job", f.job},
                             {"workload", f.workload},
                             {"seed", f.seed},
                             {"step", f.step},
                             {"finding", f.what},
                             {"reproducer", f.reproducer},
                             {"replay", f.replay_command},
                             {"device", f.device}});
  j["jobs"] = nlohmann::json::array();
  for (const JobRecord& job : r.jobs)
    j["jobs"].push_back({{"index", job.index},
                         {"backend", job.backend},
                         {"workload", job.workload},
                         {"seed", job.seed},
                         {"steps_run", job.steps_run},
                         {"result", job.result},
                         {"device", job.device},
                         {"seconds", job.seconds}});
  nlohmann::json devices = nlohmann::json::array();
  for (const RunFacts::Device& d : r.run.devices)
    devices.push_back({{"device", d.device}, {"jobs", d.jobs}, {"steps", d.steps}, {"seconds", d.seconds}});
  j["run"] = {{"host", r.run.host},
              {"started_at", r.run.started_at},
              {"seconds", r.run.wall_seconds},
              {"threads", r.run.threads},
              {"devices", devices}};
  if (!r.run.merged_from.is_null()) j["run"]["merged_from"] = r.run.merged_from;
  j["coverage"] = coverage_to_json(r.coverage);
  j["input_space"] = input_space_to_json(r.input_space);
  j["sharing"] = sharing_json(r);
  j["cuda_kernel_paths"] = {{"steps", r.kernel_path_steps}, {"not_reached", kernel_paths_not_reached(r)}};
  j["cuda_grids"] = {{"steps", r.grid_steps}, {"not_reached", grids_not_reached(r)}};
  if (!r.request_log.is_null()) j["request_log"] = check_log_figures_json(r);
  j["not_run"] = r.not_run;
  j["declared_limits"] = declared_limits_to_json(r);
  if (r.allowed_exclusions)
    j["exclusions"] = {{"allowed", *r.allowed_exclusions}, {"beyond_allowed", r.exclusions_beyond_allowed}};
  j["verdict"] = verdict_text(r);
  if (!r.stopped_by.empty()) j["stopped_by"] = r.stopped_by;
  j["unavailable_backends"] = r.unavailable;
  if (!r.reproducer.empty()) j["reproducer"] = {{"file", r.reproducer}, {"replay", r.replay_command}};
  return j;
}

}  // namespace qsa::engine
