#include "qsa/engine/check_log_figures.hpp"

#include <string>

#include "qsa/engine/check_report_reader.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/replay_figures.hpp"

namespace qsa::engine {

// What the campaign did with the log's requests: its scenario runs (every backend's) and their
// coverage, so a merge, which sums the shards' coverage and joins their jobs, states the whole.
nlohmann::json exercised_json(const CheckReport& r) {
  const traces::Coverage& c = r.coverage;
  return {{"scenario_runs", static_cast<int64_t>(r.jobs.size())},
          {"steps", c.steps},
          {"rows", c.rows},
          {"requests", c.requests},
          {"prefix_hits", c.prefix_hits},
          {"preemptions", c.preemptions},
          {"log_implied_reusable_positions", r.log_implied_reusable},
          {"log_implied_reused_positions", r.log_implied_reused}};
}

nlohmann::json sharing_json(const CheckReport& report) {
  const traces::PrefixHitCounts& h = report.sharing;
  nlohmann::json depth = nlohmann::json::object();
  for (const auto& [blocks, n] : h.depth) depth[std::to_string(blocks)] = n;
  return {{"prefix_hits", h.hits},
          {"shared_blocks", h.hit_blocks},
          {"shared_positions", h.hit_positions},
          {"hits_on_finished_requests", h.on_finished},
          {"blocks_from_finished_requests", h.blocks_on_finished},
          {"hits_deeper_than_one_block", h.deeper_than_one},
          {"hits_after_block_reuse", h.after_eviction},
          {"hits_on_blocks_live_requests_share", h.shared_by_live},
          {"hit_depth_blocks", depth},
          {"evictions", report.evictions}};
}

void read_sharing(const nlohmann::json& sharing, const std::string& context, CheckReport* report) {
  traces::JsonObjectReader r(sharing, context);
  traces::PrefixHitCounts& h = report->sharing;
  h.hits = report_count(r, "prefix_hits");
  h.hit_blocks = report_count(r, "shared_blocks");
  h.hit_positions = report_count(r, "shared_positions");
  h.on_finished = report_count(r, "hits_on_finished_requests");
  h.blocks_on_finished = report_count(r, "blocks_from_finished_requests");
  h.deeper_than_one = report_count(r, "hits_deeper_than_one_block");
  h.after_eviction = report_count(r, "hits_after_block_reuse");
  h.shared_by_live = report_count(r, "hits_on_blocks_live_requests_share");
  report->evictions = report_count(r, "evictions");
  const nlohmann::json& depth = r.raw("hit_depth_blocks");
  if (!depth.is_object()) r.fail("hit_depth_blocks", -1, "wrong-type", "expected an object of hit counts by depth");
  for (const auto& [blocks, n] : depth.items()) {
    const std::string field = "hit_depth_blocks." + blocks;
    if (blocks.empty() || blocks.size() > 12 || blocks.find_first_not_of("0123456789") != std::string::npos)
      r.fail(field, -1, "wrong-type", "expected a depth in blocks");
    if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > kMaxReportCount)
      r.fail(field, -1, "out-of-range", "a count lies in [0, 2^47]");
    h.depth[std::stoll(blocks)] = n.get<int64_t>();
  }
  r.reject_unknown_fields();
}

nlohmann::json check_log_figures_json(const CheckReport& report) {
  if (report.request_log.is_null()) return nullptr;
  return {{"log", report.request_log}, {"exercised", exercised_json(report)}};
}

nlohmann::json read_check_log_figures(const nlohmann::json& request_log, const std::string& context,
                                      CheckReport* report) {
  traces::JsonObjectReader outer(request_log, context);
  const nlohmann::json& log = outer.raw("log");
  {  // the rest is recomputed from the merged coverage and jobs
    traces::JsonObjectReader e(outer.raw("exercised"), context + "exercised.");
    report->log_implied_reusable = report_count(e, "log_implied_reusable_positions");
    report->log_implied_reused = report_count(e, "log_implied_reused_positions");
  }
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

}  // namespace qsa::engine
