#include "qsa/traces/replay_figures.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace qsa::traces {

ReplaySummarizer::ReplaySummarizer(const Workload& w, const ScenarioConfig& config)
    : coverage_(config), hits_(config), finished_(w.schedule->arrivals.size(), false) {
  r_.window_requests = static_cast<int64_t>(w.schedule->arrivals.size());
  r_.step_limit = w.schedule->step_limit;
  r_.block_size = config.block_size;
  r_.cache_blocks = config.num_compressed_blocks;
  r_.first_start.assign(w.schedule->arrivals.size(), -1);  // request id k is arrival k of the window
}

void ReplaySummarizer::add(const StepRecord& step) {
  ++r_.steps;
  coverage_.add(step);
  hits_.add(step);
  for (int64_t id : step.finished) finished_[static_cast<size_t>(id)] = true;
  note_first_starts(step, &r_.first_start);
  for (const ChunkRecord& chunk : step.chunks) {
    r_.largest_position = std::max(r_.largest_position, chunk.start + chunk.length - 1);
    for (int64_t p = chunk.start; p < chunk.start + chunk.length;) {  // one bin at a time
      size_t bin = 0;
      int64_t bin_end = 64;
      while (p >= bin_end) {
        ++bin;
        bin_end *= 2;
      }
      if (r_.rows_by_position.size() <= bin) r_.rows_by_position.resize(bin + 1, 0);
      const int64_t rows = std::min(chunk.start + chunk.length, bin_end) - p;
      r_.rows_by_position[bin] += rows;
      p += rows;
    }
  }
}

ReplaySummary ReplaySummarizer::finish(int64_t evictions) {
  ReplaySummary r = r_;
  r.coverage = coverage_.coverage();
  r.hits = hits_.counts();
  r.finished = std::count(finished_.begin(), finished_.end(), true);
  r.evictions = evictions;
  return r;
}

void ServedPositions::add(const StepRecord& step) {
  for (const ChunkRecord& chunk : step.chunks) {
    int64_t& committed = committed_[chunk.request];  // 0 for a request's first chunk
    const int64_t now = chunk.start + chunk.accepted;
    served_ += now - committed;
    committed = now;
  }
  for (int64_t id : step.finished) committed_.erase(id);
  for (int64_t id : step.preempted) {
    served_ -= committed_[id];
    committed_.erase(id);
  }
}

void note_first_starts(const StepRecord& step, std::vector<int64_t>* first_start) {
  for (const ChunkRecord& chunk : step.chunks) {
    int64_t& first = (*first_start)[static_cast<size_t>(chunk.request)];
    if (first < 0) first = chunk.prefilled ? 0 : chunk.start;
  }
}

int64_t reused_of_implied(const std::vector<int64_t>& implied, const std::vector<int64_t>& first_start) {
  int64_t reused = 0;
  for (size_t k = 0; k < implied.size() && k < first_start.size(); ++k)
    reused += std::min(implied[k], std::max<int64_t>(0, first_start[k]));
  return reused;
}

int64_t ReplaySummary::reused_of_implied() const { return traces::reused_of_implied(reuse.per_request, first_start); }

namespace {

std::string share(int64_t part, int64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return text;
}

}  // namespace

nlohmann::json request_log_figures_json(const RequestSchedule& s) {
  const RequestLogFigures& f = s.figures;
  return {{"file", s.path},
          {"window", {s.arrivals.front().index, s.arrivals.back().index + 1}},
          {"requests", f.requests},
          {"span_ms", f.span_ms},
          {"requests_per_s", f.requests_per_s},
          {"prompt_tokens", {{"p50", f.prompt_p50}, {"p90", f.prompt_p90}, {"p99", f.prompt_p99}, {"max", f.prompt_max}}},
          {"output_tokens", {{"p50", f.output_p50}, {"p90", f.output_p90}, {"p99", f.output_p99}, {"max", f.output_max}}},
          {"requests_with_hashes", f.with_hashes},
          {"prefix_requests", f.prefix_requests},
          {"prefix_hash_blocks", f.prefix_blocks},
          {"whole_hash_blocks", f.hash_blocks}};
}

std::string request_log_figures_text(const nlohmann::json& log) {
  const auto n = [&](const char* key) { return log.at(key).get<int64_t>(); };
  const auto tokens = [&](const char* key) {
    const nlohmann::json& t = log.at(key);
    return "p50 " + t.at("p50").dump() + " p90 " + t.at("p90").dump() + " p99 " + t.at("p99").dump() + " max " +
           t.at("max").dump();
  };
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.3f", log.at("requests_per_s").get<double>());
  std::ostringstream os;
  os << "log " << log.at("file").get<std::string>() << ", requests " << log.at("window").at(0) << ":"
     << log.at("window").at(1) << ": " << n("requests") << " requests over " << n("span_ms") << " ms (" << rate
     << " req/s); prompt tokens " << tokens("prompt_tokens") << "; output tokens " << tokens("output_tokens")
     << "; prefix share: " << n("prefix_requests") << " of " << n("requests")
     << " requests start with a hash block an earlier one logged (" << share(n("prefix_requests"), n("requests"))
     << "), " << n("prefix_hash_blocks") << " of " << n("whole_hash_blocks") << " whole hash blocks ("
     << share(n("prefix_hash_blocks"), n("whole_hash_blocks")) << ")\n";
  return os.str();
}

std::string replay_summary_text(const Workload& w, const ReplaySummary& r) {
  const ReplayOptions& o = w.schedule->options;
  const int64_t b = r.block_size;
  std::ostringstream os;
  os << request_log_figures_text(request_log_figures_json(*w.schedule)) << "replayed: " << r.finished << " of " << r.window_requests << " requests finished in " << r.steps
     << " steps (limit " << r.step_limit << "); " << r.coverage.prefix_hits << " prefix hits ("
     << share(r.coverage.prefix_hits, r.window_requests) << " of the requests), " << r.coverage.preemptions
     << " preemptions, " << r.evictions << " evictions, largest position " << r.largest_position << "; shared " << r.hits.hit_blocks * b
     << " positions in " << r.hits.hit_blocks << " blocks of " << b << "; reused " << r.reused_of_implied() << " of the log-implied reusable "
     << r.reuse.reusable_positions << " (" << share(r.reused_of_implied(), r.reuse.reusable_positions)
     << "; the log implies " << share(r.reuse.reusable_positions, r.reuse.prompt_positions)
     << " of " << r.reuse.prompt_positions << " prompt positions); hit depth in blocks:";
  for (const auto& [depth, n] : r.hits.depth) os << " " << depth << "x" << n;
  os << "; rows written by position:";
  for (size_t i = 0; i < r.rows_by_position.size(); ++i)
    os << (i == 0 ? " <64 " : " <" + std::to_string(int64_t{64} << i) + " ") << r.rows_by_position[i];
  os << "; a step is " << kReplayStepMs << " ms x " << o.time_compression << ", lengths / " << o.length_scale
     << ", budget " << o.token_budget << " tokens, " << o.max_num_seqs << " sequences, " << r.cache_blocks
     << " cache blocks, preemption " << o.preempt_per_mille << " per mille";
  if (o.prefilled_context > 0)
    os << ", each request starts with up to " << o.prefilled_context << " positions pre-filled";
  os << "\n";
  return os.str();
}

nlohmann::json replay_summary_json(const Workload& w, const ReplaySummary& r) {
  const RequestSchedule& s = *w.schedule;
  const ReplayOptions& o = s.options;
  nlohmann::json depth = nlohmann::json::object();
  for (const auto& [blocks, n] : r.hits.depth) depth[std::to_string(blocks)] = n;
  return {{"log", request_log_figures_json(s)},
          {"replayed",
           {{"requests", r.window_requests},
            {"finished", r.finished},
            {"steps", r.steps},
            {"step_limit", r.step_limit},
            {"prefix_hits", r.coverage.prefix_hits},
            {"shared_blocks", r.hits.hit_blocks},
            {"shared_positions", r.hits.hit_blocks * r.block_size},
            {"log_implied_reusable_positions", r.reuse.reusable_positions},
            {"log_implied_reused_positions", r.reused_of_implied()},
            {"prompt_positions", r.reuse.prompt_positions},
            {"hit_depth_blocks", depth},
            {"preemptions", r.coverage.preemptions},
            {"evictions", r.evictions},
            {"largest_position", r.largest_position},
            {"rows_by_position", r.rows_by_position},
            {"step_ms", kReplayStepMs * o.time_compression},
            {"length_scale", o.length_scale},
            {"token_budget", o.token_budget},
            {"max_num_seqs", o.max_num_seqs},
            {"preempt_per_mille", o.preempt_per_mille},
            {"prefilled_context", o.prefilled_context},
            {"cache_blocks", r.cache_blocks}}}};
}

}  // namespace qsa::traces
