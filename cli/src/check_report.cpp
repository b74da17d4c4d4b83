#include "check_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <set>

#include "check_log_figures.hpp"
#include "input_space_report.hpp"
#include "output.hpp"
#include "qsa/backends/cuda_kernel_path.hpp"

namespace qsa::cli {

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

std::vector<std::string> paths_not_reached(const CheckReport& r) {
  return not_reached(r.kernel_path_steps, backends::cuda_step_kernel_paths());
}

std::vector<std::string> grids_not_reached(const CheckReport& r) {
  return not_reached(r.grid_steps, backends::cuda_step_grids());
}

// "name: steps, ..." in the order of `all`, then any other name counted.
std::string step_counts_line(const std::map<std::string, int64_t>& steps, const std::vector<std::string>& all) {
  std::string line;
  auto add = [&](const std::string& name, int64_t count) {
    line += (line.empty() ? "" : ", ") + name + ": " + std::to_string(count);
  };
  for (const std::string& name : all)
    if (steps.count(name) != 0) add(name, steps.at(name));
  for (const auto& [name, count] : steps)
    if (std::find(all.begin(), all.end(), name) == all.end()) add(name, count);
  return line;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// --keep-going: every listed finding with its reproducer, and what the cap left out.
void print_findings(const CheckReport& r, std::FILE* out) {
  if (r.findings_total == 0) return;
  std::fprintf(out, "\n%lld finding(s)%s:\n", static_cast<long long>(r.findings_total),
               r.findings.size() < static_cast<size_t>(r.findings_total) ? ", the first ones in campaign order" : "");
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const CheckFinding& f = r.findings[i];
    std::fprintf(out, "  %zu. %s on %s%s: %s\n", i + 1, f.check.c_str(), f.backend.c_str(),
                 f.device >= 0 ? (" (device " + std::to_string(f.device) + ")").c_str() : "", f.what.c_str());
    if (!f.reproducer.empty())
      std::fprintf(out, "     reproducer: %s\n     replay:     %s\n", f.reproducer.c_str(), f.replay_command.c_str());
  }
  const int64_t unlisted = r.findings_total - static_cast<int64_t>(r.findings.size());
  if (unlisted > 0)
    std::fprintf(out,
                 "  ... and %lld more: the cap of --max-findings %lld was reached; they are counted in the table\n"
                 "      but not listed or shrunk (raise --max-findings to see them)\n",
                 static_cast<long long>(unlisted), static_cast<long long>(r.campaign.max_findings));
}

}  // namespace

namespace {

// What each backend declared and what its declarations left out: the classes never tested first.
void print_declared_limits(const CheckReport& r, std::FILE* out) {
  for (const DeclaredLimits& d : r.declared_limits) {
    std::fprintf(out, "\ndeclared limits of %s:\n", d.backend.c_str());
    for (const auto& [key, value] : d.declared) std::fprintf(out, "  %-22s %s\n", key.c_str(), value.c_str());
    std::string excluded;
    for (const auto& [what, n] : d.excluded) excluded += (excluded.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    std::fprintf(out, "  excluded (generated, never run): %s; declined after generation: %lld\n",
                 excluded.empty() ? "none" : excluded.c_str(), static_cast<long long>(d.declined));
    for (const auto& [why, n] : d.reasons) std::fprintf(out, "    - %lld: %s\n", static_cast<long long>(n), why.c_str());
  }
  const std::vector<std::string> untested = untested_classes(r);
  if (!untested.empty())
    std::fprintf(out, "input classes never tested (the declarations excluded every input of them): %s\n",
                 joined(untested).c_str());
  if (!r.exclusions_beyond_allowed.empty())
    std::fprintf(out, "FAILED: excluded beyond --allow-excluded: %s\n", joined(r.exclusions_beyond_allowed).c_str());
}

}  // namespace

bool checks_cuda_kernels(const CheckReport& r) {
  for (std::string name : r.backends) {
    if (name.rfind("isolated:", 0) == 0) name = name.substr(9);
    if (name == "cuda" || name.rfind("cuda-planted-", 0) == 0) return true;
  }
  return false;
}

namespace {

// A finding comes first: what failed, then how to replay it, before any table (issue 52).
void print_failures(const CheckReport& r, std::FILE* out) {
  for (const CheckRow& row : r.rows)
    if (row.failures > 0)
      std::fprintf(out, "\nFAILED %s on %s:\n  %s\n", row.check.c_str(), row.backend.c_str(),
                   row.first_failure.c_str());
  if (r.campaign.keep_going) {
    print_findings(r, out);
  } else if (!r.reproducer.empty()) {
    std::fprintf(out, "\nreproducer: %s\nreplay:     %s\n", r.reproducer.c_str(), r.replay_command.c_str());
  }
}

// A backend as the table names it: every word holding a path reduced to its file name
// ("plugin:/opt/k/build/libk.so#v" -> "plugin:libk.so#v", a worker's script likewise); the header
// line above the table names it in full.
std::string table_name(const std::string& backend) {
  std::string out, word;
  auto flush = [&] {
    const size_t prefix = word.rfind(':', word.find('/'));  // keep "plugin:" before a path
    const size_t slash = word.rfind('/');
    if (slash != std::string::npos)
      word = (prefix != std::string::npos && prefix < slash ? word.substr(0, prefix + 1) : "") + word.substr(slash + 1);
    out += word;
    word.clear();
  };
  for (char ch : backend) {
    if (ch == ' ') {
      flush();
      out += ch;
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

// The per-check table, its columns as wide as the longest check and backend name it holds; the
// backends by their short names unless two would read alike.
void print_table(const CheckReport& r, std::FILE* out) {
  std::map<std::string, std::string> shown;
  std::set<std::string> short_names;
  for (const std::string& b : r.backends) short_names.insert(table_name(b));
  const bool shorten = short_names.size() == r.backends.size();
  int check_width = 5, backend_width = 7;
  for (const CheckRow& row : r.rows) {
    shown.emplace(row.backend, shorten ? table_name(row.backend) : row.backend);
    check_width = std::max(check_width, static_cast<int>(row.check.size()));
    backend_width = std::max(backend_width, static_cast<int>(shown[row.backend].size()));
  }
  std::fprintf(out, "\n%-*s  %-*s %8s %7s %9s\n", check_width, "check", backend_width, "backend", "cases", "failed",
               "seconds");
  for (const CheckRow& row : r.rows)
    std::fprintf(out, "%-*s  %-*s %8lld %7lld %9.2f\n", check_width, row.check.c_str(), backend_width,
                 shown[row.backend].c_str(), static_cast<long long>(row.cases), static_cast<long long>(row.failures),
                 row.seconds);
}

}  // namespace

void print_report(const CheckReport& r, std::FILE* out, bool list_input_space) {
  std::fprintf(out, "\n");
  if (checks_no_kernel(r)) std::fprintf(out, "qsacheck check: %s\n", no_kernel_note(r).c_str());
  std::fprintf(out, "qsacheck check: seed %llu, backends: %s", static_cast<unsigned long long>(r.seed),
               joined(r.backends).c_str());
  if (r.campaign.shard_count > 1)
    std::fprintf(out, ", shard %lld/%lld", static_cast<long long>(r.campaign.shard_index),
                 static_cast<long long>(r.campaign.shard_count));
  std::fprintf(out, ", float comparison %s%s\n", r.float_tolerance.to_string().c_str(),
               r.float_tolerance.exact() ? " (bit for bit)" : " (SPEC 6 tolerance mode: NOT an exact result)");
  print_failures(r, out);
  print_table(r, out);
  const traces::Coverage& c = r.coverage;
  std::fprintf(
      out,
      "\ncoverage: %lld steps, %lld rows, %lld requests, %lld groups closed, %lld ring wraps, %lld drafts rejected,\n"
      "          %lld preemptions, %lld prefix hits, %lld padded steps, %lld negative common slots,\n"
      "          %lld MRoPE steps, %lld fp8 steps\n",
      static_cast<long long>(c.steps), static_cast<long long>(c.rows), static_cast<long long>(c.requests),
      static_cast<long long>(c.groups_closed), static_cast<long long>(c.ring_wraps),
      static_cast<long long>(c.drafts_rejected), static_cast<long long>(c.preemptions),
      static_cast<long long>(c.prefix_hits), static_cast<long long>(c.padded_steps),
      static_cast<long long>(c.negative_common_slots), static_cast<long long>(c.mrope_steps),
      static_cast<long long>(c.fp8_steps));
  for (const std::string& line : r.kernel_time) std::fprintf(out, "%s\n", line.c_str());
  // The paths and grids of this build's CUDA step kernel say nothing about a plugin's or a
  // worker's kernel: shown only when the CUDA backend ran (the JSON report keeps them always).
  if (!r.kernel_path_steps.empty() && checks_cuda_kernels(r)) {  // in the kernel's order, then any D it is not built for
    std::fprintf(out, "CUDA kernel paths (steps): %s\n",
                 step_counts_line(r.kernel_path_steps, backends::cuda_step_kernel_paths()).c_str());
    if (const std::string missing = joined(paths_not_reached(r)); !missing.empty())
      std::fprintf(out, "  not reached: %s\n", missing.c_str());
  }
  if (!r.grid_steps.empty() && checks_cuda_kernels(r)) {
    std::fprintf(out, "CUDA kernel grids (steps): %s\n",
                 step_counts_line(r.grid_steps, backends::cuda_step_grids()).c_str());
    if (const std::string missing = joined(grids_not_reached(r)); !missing.empty())
      std::fprintf(out, "  not reached: %s\n", missing.c_str());
  }
  print_sharing(r, out);
  print_check_log_figures(r, out);  // the replayed log beside the coverage above
  print_input_space(r.input_space, out, list_input_space);
  for (const auto& [backend, stats] : r.float_statistics) {
    std::fprintf(out, "\nfloat outputs of %s under %s:\n", backend.c_str(), r.float_tolerance.to_string().c_str());
    std::fprintf(out, "  %s\n  %s\n", stats.compressed.to_string("compressed cache").c_str(),
                 stats.q_out.to_string("q_out").c_str());
  }
  if (!r.unavailable.empty()) {
    std::fprintf(out, "\nbackends not available here (not part of this campaign):\n");
    for (const std::string& line : r.unavailable) std::fprintf(out, "  - %s\n", line.c_str());
  }
  print_declared_limits(r, out);
  if (!r.not_run.empty()) {
    std::fprintf(out, "\nnot run:\n");
    for (const std::string& line : r.not_run) std::fprintf(out, "  - %s\n", line.c_str());
  }
  std::fprintf(out, "\nRESULT: %s\n", verdict_text(r).c_str());
  std::fflush(out);
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
  j["cuda_kernel_paths"] = {{"steps", r.kernel_path_steps}, {"not_reached", paths_not_reached(r)}};
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

}  // namespace qsa::cli
