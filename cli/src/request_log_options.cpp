#include "request_log_options.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "number_options.hpp"
#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {

CLI::Option* add_request_log_options(CLI::App* cmd, RequestLogArguments* a) {
  CLI::Option* requests = cmd->add_option(
      "--requests", a->path,
      "Replay a request log: each logged request arrives in order with its own lengths, and\n"
      "requests whose leading prompt-block hashes are equal share those blocks by a prefix hit\n"
      "(docs/workloads.md \"Request logs\")");
  cmd->add_option("--requests-format", a->format,
                  "jsonl ({\"timestamp\": ms, \"input_length\", \"output_length\", \"hash_ids\"} a line) or\n"
                  "azure-csv (TIMESTAMP,ContextTokens,GeneratedTokens); default: azure-csv for a name\n"
                  "ending in .csv, jsonl otherwise");
  cmd->add_option("--hash-block", a->hash_block, "Prompt tokens per hash of hash_ids, 1 ... 2^20")
      ->capture_default_str();
  cmd->add_option("--window", a->window,
                  "Replay requests FROM:TO of the log (0-based indices in file order, TO exclusive; either\n"
                  "side may be empty: 1000:2000, :500); times count from the window's first request")
      ->capture_default_str();
  cmd->add_option("--time-compression", a->time_compression,
                  "A step is 25 ms of the log times this factor, 1 ... 10^6 (60: an hour-long log in\n"
                  "2400 steps plus the time to serve it)")
      ->capture_default_str();
  cmd->add_option("--length-scale", a->length_scale,
                  "Divide prompt and output lengths by this, 1 ... 2^20 (floor, at least 1); it must divide\n"
                  "--hash-block when the log has hashes")
      ->capture_default_str();
  cmd->add_option("--token-budget", a->token_budget, "Tokens per step (max_num_batched_tokens), 8 ... 2^20")
      ->capture_default_str();
  cmd->add_option("--max-num-seqs", a->max_num_seqs,
                  "Requests per step at most (max_num_seqs), 1 ... 65536; the block pool holds this many\n"
                  "requests of the window's longest length")
      ->capture_default_str();
  cmd->add_option("--cache-blocks", a->cache_blocks,
                  "Blocks of the compressed cache, the prefix cache's pool (vLLM's GPU blocks), 0 ... 2^24;\n"
                  "0: the --max-num-seqs pool above, which holds a window's working set. Fewer blocks than\n"
                  "the working set make the pool evict cached blocks (docs/workloads.md \"Request logs\")")
      ->capture_default_str();
  cmd->add_option("--preempt-per-mille", a->preempt_per_mille,
                  "Chance per step, in thousandths, of preempting one more running request, 0 ... 1000")
      ->capture_default_str();
  cmd->add_option("--prefilled-context", a->prefilled_context,
                  "Each request starts with its first min(N, prompt - 1) positions already in the caches,\n"
                  "written by the reference, and takes no prefix hit: a long prompt completes without\n"
                  "stepping through its prefill (docs/workloads.md \"Pre-filled context\"), 0 ... 2^20")
      ->capture_default_str();
  return requests;
}

RequestLogChoice parse_request_log_arguments(const RequestLogArguments& a) {
  RequestLogChoice c;
  c.path = a.path;
  c.format = a.format.empty() ? traces::request_log_format_of(a.path) : traces::parse_request_log_format(a.format);
  c.hash_block_tokens = parse_integer_option("--hash-block", a.hash_block, 1, int64_t{1} << 20);
  c.replay.window = traces::parse_request_window(a.window);
  c.replay.time_compression = parse_integer_option("--time-compression", a.time_compression, 1, 1000000);
  c.replay.length_scale = parse_integer_option("--length-scale", a.length_scale, 1, int64_t{1} << 20);
  c.replay.token_budget = parse_integer_option("--token-budget", a.token_budget, 8, int64_t{1} << 20);
  c.replay.max_num_seqs = parse_integer_option("--max-num-seqs", a.max_num_seqs, 1, 65536);
  c.replay.preempt_per_mille = parse_integer_option("--preempt-per-mille", a.preempt_per_mille, 0, 1000);
  c.replay.prefilled_context = parse_integer_option("--prefilled-context", a.prefilled_context, 0, int64_t{1} << 20);
  c.replay.cache_blocks = parse_integer_option("--cache-blocks", a.cache_blocks, 0, int64_t{1} << 24);
  return c;
}

std::string RequestLogChoice::settings_text() const {
  std::ostringstream os;
  os << traces::to_string(format) << ' ' << hash_block_tokens << ' ' << replay.window.from << ':' << replay.window.to
     << ' ' << replay.time_compression << ' ' << replay.length_scale << ' ' << replay.token_budget << ' '
     << replay.max_num_seqs << ' ' << replay.preempt_per_mille
     << (replay.prefilled_context > 0 ? " prefilled " + std::to_string(replay.prefilled_context) : std::string())
     << (replay.cache_blocks > 0 ? " cache-blocks " + std::to_string(replay.cache_blocks) : std::string());
  return os.str();
}

traces::Workload request_log_workload(const RequestLogChoice& c) {
  return traces::workload_from_request_log(traces::read_request_log(c.path, c.format, c.hash_block_tokens),
                                           c.replay);
}

ReplaySummarizer::ReplaySummarizer(const traces::Workload& w, const traces::ScenarioConfig& config)
    : coverage_(config), hits_(config), finished_(w.schedule->arrivals.size(), false) {
  r_.window_requests = static_cast<int64_t>(w.schedule->arrivals.size());
  r_.step_limit = w.schedule->step_limit;
  r_.block_size = config.block_size;
  r_.cache_blocks = config.num_compressed_blocks;
  r_.first_start.assign(w.schedule->arrivals.size(), -1);  // request id k is arrival k of the window
}

void ReplaySummarizer::add(const traces::StepRecord& step) {
  ++r_.steps;
  coverage_.add(step);
  hits_.add(step);
  for (int64_t id : step.finished) finished_[static_cast<size_t>(id)] = true;
  note_first_starts(step, &r_.first_start);
  for (const traces::ChunkRecord& chunk : step.chunks) {
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

void ServedPositions::add(const traces::StepRecord& step) {
  for (const traces::ChunkRecord& chunk : step.chunks) {
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

void note_first_starts(const traces::StepRecord& step, std::vector<int64_t>* first_start) {
  for (const traces::ChunkRecord& chunk : step.chunks) {
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

int64_t ReplaySummary::reused_of_implied() const { return cli::reused_of_implied(reuse.per_request, first_start); }

namespace {

std::string share(int64_t part, int64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return text;
}

}  // namespace

nlohmann::json request_log_figures_json(const traces::RequestSchedule& s) {
  const traces::RequestLogFigures& f = s.figures;
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

std::string replay_summary_text(const traces::Workload& w, const ReplaySummary& r) {
  const traces::ReplayOptions& o = w.schedule->options;
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
  os << "; a step is " << traces::kReplayStepMs << " ms x " << o.time_compression << ", lengths / " << o.length_scale
     << ", budget " << o.token_budget << " tokens, " << o.max_num_seqs << " sequences, " << r.cache_blocks
     << " cache blocks, preemption " << o.preempt_per_mille << " per mille";
  if (o.prefilled_context > 0)
    os << ", each request starts with up to " << o.prefilled_context << " positions pre-filled";
  os << "\n";
  return os.str();
}

nlohmann::json replay_summary_json(const traces::Workload& w, const ReplaySummary& r) {
  const traces::RequestSchedule& s = *w.schedule;
  const traces::ReplayOptions& o = s.options;
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
            {"step_ms", traces::kReplayStepMs * o.time_compression},
            {"length_scale", o.length_scale},
            {"token_budget", o.token_budget},
            {"max_num_seqs", o.max_num_seqs},
            {"preempt_per_mille", o.preempt_per_mille},
            {"prefilled_context", o.prefilled_context},
            {"cache_blocks", r.cache_blocks}}}};
}

}  // namespace qsa::cli
