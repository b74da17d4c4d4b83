#include "check_log_figures.hpp"

#include <string>

#include "qsa/traces/json_reader.hpp"
#include "request_log_options.hpp"

namespace qsa::cli {
namespace {

// What the campaign did with the log's requests: its scenario runs (every backend's) and their
// coverage, so a merge, which sums the shards' coverage and joins their jobs, states the whole.
nlohmann::json exercised_json(const CheckReport& r) {
  const traces::Coverage& c = r.coverage;
  return {{"scenario_runs", static_cast<int64_t>(r.jobs.size())},
          {"steps", c.steps},
          {"rows", c.rows},
          {"requests", c.requests},
          {"prefix_hits", c.prefix_hits},
          {"preemptions", c.preemptions}};
}

}  // namespace

nlohmann::json check_log_figures_json(const CheckReport& report) {
  if (report.request_log.is_null()) return nullptr;
  return {{"log", report.request_log}, {"exercised", exercised_json(report)}};
}

void print_check_log_figures(const CheckReport& report, std::FILE* out) {
  if (report.request_log.is_null()) return;
  const nlohmann::json e = exercised_json(report);
  const std::string text = request_log_figures_text(report.request_log);
  std::fprintf(out, "\n%scampaign exercised: %lld scenario runs, %lld steps, %lld requests, %lld prefix hits, %lld preemptions\n",
               text.c_str(), static_cast<long long>(e["scenario_runs"].get<int64_t>()),
               static_cast<long long>(e["steps"].get<int64_t>()), static_cast<long long>(e["requests"].get<int64_t>()),
               static_cast<long long>(e["prefix_hits"].get<int64_t>()),
               static_cast<long long>(e["preemptions"].get<int64_t>()));
}

nlohmann::json read_check_log_figures(const nlohmann::json& request_log, const std::string& context) {
  traces::JsonObjectReader outer(request_log, context);
  const nlohmann::json& log = outer.raw("log");
  outer.raw("exercised");  // recomputed from the merged coverage
  outer.reject_unknown_fields();
  traces::JsonObjectReader r(log, context + "log.");
  r.string("file");
  const nlohmann::json& window = r.raw("window");
  if (!window.is_array() || window.size() != 2 || !window[0].is_number_integer() || !window[1].is_number_integer())
    r.fail("window", -1, "wrong-type", "expected [FROM, TO], two integers");
  for (const char* key : {"requests", "span_ms", "requests_with_hashes", "prefix_requests", "prefix_hash_blocks",
                          "whole_hash_blocks"})
    r.integer(key);
  r.number("requests_per_s");
  for (const char* key : {"prompt_tokens", "output_tokens"}) {
    traces::JsonObjectReader t(r.raw(key), context + "log." + key + ".");
    for (const char* q : {"p50", "p90", "p99", "max"}) t.integer(q);
    t.reject_unknown_fields();
  }
  r.reject_unknown_fields();
  return log;
}

}  // namespace qsa::cli
