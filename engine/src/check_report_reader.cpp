#include "qsa/engine/check_report_reader.hpp"

#include <algorithm>
#include <map>

#include "qsa/engine/check_log_figures.hpp"
#include "qsa/engine/input_space_report.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::engine {

int64_t report_count(traces::JsonObjectReader& r, const char* field) { return r.bounded_integer(field, 0, kMaxReportCount); }

namespace {

using traces::JsonObjectReader;

uint64_t unsigned_field(JsonObjectReader& r, const char* field) {
  const nlohmann::json& value = r.raw(field);
  if (!value.is_number_unsigned()) r.fail(field, -1, "wrong-type", "expected an integer in [0, 2^64-1]");
  return value.get<uint64_t>();
}

std::vector<std::string> strings(JsonObjectReader& r, const char* field) {
  const nlohmann::json& value = r.raw(field);
  std::vector<std::string> out;
  if (!value.is_array()) r.fail(field, -1, "wrong-type", "expected an array of strings");
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) r.fail(field, static_cast<int64_t>(i), "wrong-type", "expected a string");
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

const nlohmann::json& array_field(JsonObjectReader& r, const char* field) {
  const nlohmann::json& value = r.raw(field);
  if (!value.is_array()) r.fail(field, -1, "wrong-type", "expected an array");
  return value;
}

std::string item(const std::string& context, const char* field, size_t i) {
  return context + field + "[" + std::to_string(i) + "].";
}

traces::Coverage coverage_from(const nlohmann::json& json, const std::string& context) {
  JsonObjectReader r(json, context);
  traces::Coverage c;
  c.steps = report_count(r, "steps");
  c.rows = report_count(r, "rows");
  c.requests = report_count(r, "requests");
  c.groups_closed = report_count(r, "groups_closed");
  c.ring_wraps = report_count(r, "ring_wraps");
  c.drafts_rejected = report_count(r, "drafts_rejected");
  c.preemptions = report_count(r, "preemptions");
  c.prefix_hits = report_count(r, "prefix_hits");
  c.padded_steps = report_count(r, "padded_steps");
  c.negative_common_slots = report_count(r, "negative_common_slots");
  c.mrope_steps = report_count(r, "mrope_steps");
  c.fp8_steps = report_count(r, "fp8_steps");
  r.reject_unknown_fields();
  return c;
}

// {"steps": {name: count, ...}, "not_reached": [...]} (the second is derived, not read).
// The step counts of `cuda_kernel_paths` or `cuda_grids`, and every name the section lists (counted or
// not reached) into `all` (counted first: the canonical order is the backends' list, which the
// merge command sets again).
void read_step_counts(const nlohmann::json& json, const std::string& context, std::map<std::string, int64_t>* out,
                      std::vector<std::string>* all) {
  JsonObjectReader o(json, context);
  const nlohmann::json& steps = o.raw("steps");
  if (!steps.is_object()) o.fail("steps", -1, "wrong-type", "expected an object of step counts");
  for (const auto& [name, count] : steps.items()) {
    if (!count.is_number_integer() || count.get<int64_t>() < 0)
      o.fail("steps." + name, -1, "wrong-type", "expected a count of steps");
    if (count.get<int64_t>() > kMaxReportCount)
      o.fail("steps." + name, -1, "out-of-range", "a count lies in [0, 2^47]");
    (*out)[name] = count.get<int64_t>();
    all->push_back(name);
  }
  if (const nlohmann::json* missed = o.optional_raw("not_reached")) {
    if (!missed->is_array()) o.fail("not_reached", -1, "wrong-type", "expected an array of names");
    for (size_t i = 0; i < missed->size(); ++i) {
      if (!(*missed)[i].is_string()) o.fail("not_reached", static_cast<int64_t>(i), "wrong-type", "expected a name");
      all->push_back((*missed)[i].get<std::string>());
    }
  }
}

CampaignIdentity campaign_from(const nlohmann::json& json, const std::string& context) {
  JsonObjectReader r(json, context);
  CampaignIdentity id;
  id.tool_version = r.string("qsacheck_version");
  id.commit = r.string("commit");
  id.spec_version = r.string("spec_version");
  id.settings_hash = r.string("settings_hash");
  JsonObjectReader shard(r.raw("shard"), context + "shard.");
  id.shard_index = shard.integer("index");
  id.shard_count = shard.integer("count");
  shard.reject_unknown_fields();
  id.keep_going = r.boolean("keep_going");
  id.max_findings = r.integer("max_findings");
  id.jobs_total = r.integer("jobs_total");
  r.reject_unknown_fields();
  return id;
}

// The statistics of one float output, and the job holding its worst element.
engine::FloatStatistics statistics_from(const nlohmann::json& json, const std::string& context, int64_t* worst_job) {
  nlohmann::json copy = json;
  *worst_job = -1;
  if (copy.is_object() && copy.contains("worst_job")) {
    *worst_job = traces::json_integer(copy["worst_job"], context + "worst_job", -1);
    copy.erase("worst_job");
  }
  return engine::float_statistics_from_json(copy, context);
}

}  // namespace

CheckReport report_from_json(const nlohmann::json& json, const std::string& context) {
  JsonObjectReader r(json, context);
  CheckReport report;
  if (const int64_t version = r.integer("schema_version"); version != kCheckReportSchemaVersion)
    r.fail("schema_version", -1, "unsupported-version",
           "this qsacheck reads check reports of schema version " + std::to_string(kCheckReportSchemaVersion) +
               ", the file has " + std::to_string(version));
  report.seed = unsigned_field(r, "seed");
  report.backends = strings(r, "backends");
  Error error;
  const std::string tolerance = r.string("float_tolerance");
  const std::optional<traces::FloatTolerance> parsed = traces::parse_float_tolerance(tolerance);
  if (!parsed)
    r.fail("float_tolerance", -1, "invalid-tolerance",
           std::string(traces::kFloatToleranceRule) + ", got '" + tolerance + "'");
  report.float_tolerance = *parsed;
  if (const nlohmann::json* stats = r.optional_raw("float_statistics")) {
    if (!stats->is_object()) r.fail("float_statistics", -1, "wrong-type", "expected an object per backend");
    for (const auto& [backend, outputs] : stats->items()) {
      const std::string where = context + "float_statistics." + backend + ".";
      JsonObjectReader o(outputs, where);
      engine::StepFloatStatistics s;
      std::pair<int64_t, int64_t> worst{-1, -1};
      s.compressed = statistics_from(o.raw("cache.compressed"), where + "cache.compressed.", &worst.first);
      s.q_out = statistics_from(o.raw("q_out"), where + "q_out.", &worst.second);
      o.reject_unknown_fields();
      report.float_statistics.emplace_back(backend, s);
      report.float_worst_jobs.push_back(worst);
    }
  }
  const nlohmann::json& checks = array_field(r, "checks");
  for (size_t i = 0; i < checks.size(); ++i) {
    JsonObjectReader c(checks[i], item(context, "checks", i));
    CheckRow row;
    row.check = c.string("check");
    row.backend = c.string("backend");
    row.cases = report_count(c, "cases");
    row.failures = report_count(c, "failures");
    row.seconds = c.number("seconds");
    row.first_failure = c.string("first_failure");
    row.first_failure_order = c.integer("first_failure_order");
    c.reject_unknown_fields();
    report.rows.push_back(row);
  }
  report.coverage = coverage_from(r.raw("coverage"), context + "coverage.");
  report.input_space = input_space_from_json(r.raw("input_space"), context + "input_space.");
  if (const nlohmann::json* paths = r.optional_raw("cuda_kernel_paths"))
    read_step_counts(*paths, context + "cuda_kernel_paths.", &report.kernel_path_steps, &report.all_kernel_paths);
  if (const nlohmann::json* grids = r.optional_raw("cuda_grids"))
    read_step_counts(*grids, context + "cuda_grids.", &report.grid_steps, &report.all_grids);
  read_sharing(r.raw("sharing"), context + "sharing.", &report);
  if (const nlohmann::json* log = r.optional_raw("request_log"))
    report.request_log = read_check_log_figures(*log, context + "request_log.", &report);
  report.not_run = strings(r, "not_run");
  if (r.optional_raw("declared_limits") != nullptr) {
    const nlohmann::json& limits = array_field(r, "declared_limits");
    for (size_t i = 0; i < limits.size(); ++i) {
      JsonObjectReader d(limits[i], item(context, "declared_limits", i));
      DeclaredLimits one;
      one.backend = d.string("backend");
      const nlohmann::json& declared = d.raw("declared");
      if (!declared.is_object()) d.fail("declared", -1, "wrong-type", "expected an object of strings");
      for (auto it = declared.begin(); it != declared.end(); ++it) {
        if (!it.value().is_string()) d.fail("declared", -1, "wrong-type", "expected an object of strings");
        one.declared[it.key()] = it.value().get<std::string>();
      }
      one.deviations = strings(d, "deviations");
      const nlohmann::json& excluded = d.raw("excluded");
      if (!excluded.is_object()) d.fail("excluded", -1, "wrong-type", "expected an object of counts");
      for (auto it = excluded.begin(); it != excluded.end(); ++it) {
        if (!it.value().is_number_unsigned()) d.fail("excluded", -1, "wrong-type", "expected counts >= 0");
        one.excluded[it.key()] = it.value().get<int64_t>();
      }
      one.declined = d.integer("declined");
      const nlohmann::json& reasons = d.raw("reasons");
      if (!reasons.is_object()) d.fail("reasons", -1, "wrong-type", "expected an object of counts");
      for (auto it = reasons.begin(); it != reasons.end(); ++it) {
        if (!it.value().is_number_unsigned()) d.fail("reasons", -1, "wrong-type", "expected counts >= 0");
        one.reasons[it.key()] = it.value().get<int64_t>();
      }
      (void)d.raw("excluded_classes");  // derived from the two coverages; recomputed when written
      one.excluded_input_space =
          input_space_from_json(d.raw("excluded_input_space"), item(context, "declared_limits", i) + "excluded_input_space.");
      d.reject_unknown_fields();
      report.declared_limits.push_back(one);
    }
  }
  report.unavailable = strings(r, "unavailable_backends");
  if (r.has("stopped_by")) report.stopped_by = r.string("stopped_by");
  if (const nlohmann::json* repro = r.optional_raw("reproducer")) {
    JsonObjectReader p(*repro, context + "reproducer.");
    report.reproducer = p.string("file");
    report.replay_command = p.string("replay");
    p.reject_unknown_fields();
  }
  report.campaign = campaign_from(r.raw("campaign"), context + "campaign.");
  report.findings_total = report_count(r, "findings_total");
  const nlohmann::json& findings = array_field(r, "findings");
  for (size_t i = 0; i < findings.size(); ++i) {
    JsonObjectReader f(findings[i], item(context, "findings", i));
    CheckFinding finding;
    finding.order = f.integer("order");
    finding.backend = f.string("backend");
    finding.check = f.string("check");
    finding.job = f.integer("job");
    finding.workload = f.string("workload");
    finding.seed = unsigned_field(f, "seed");
    finding.step = f.integer("step");
    finding.what = f.string("finding");
    finding.reproducer = f.string("reproducer");
    finding.replay_command = f.string("replay");
    finding.device = static_cast<int>(f.integer("device"));
    f.reject_unknown_fields();
    report.findings.push_back(finding);
  }
  const nlohmann::json& jobs = array_field(r, "jobs");
  for (size_t i = 0; i < jobs.size(); ++i) {
    JsonObjectReader j(jobs[i], item(context, "jobs", i));
    JobRecord job;
    job.index = j.integer("index");
    job.backend = j.string("backend");
    job.workload = j.string("workload");
    job.seed = unsigned_field(j, "seed");
    job.steps_run = j.integer("steps_run");
    job.result = j.string("result");
    job.device = static_cast<int>(j.integer("device"));
    job.seconds = j.number("seconds");
    j.reject_unknown_fields();
    report.jobs.push_back(job);
  }
  report.run.merged_from = r.raw("run");  // kept whole: the merge lists the shards' run facts
  // Derived from the fields above (recomputed by the merge) or the writer's own: read, not trusted.
  report.unwritten = strings(r, "unwritten_outputs");
  for (const char* derived : {"exit_code", "passed", "verdict", "findings_not_listed"}) r.raw(derived);
  r.reject_unknown_fields();
  return report;
}

}  // namespace qsa::engine
