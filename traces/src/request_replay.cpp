// A request log replayed as requests (request_replay.hpp).
#include "qsa/traces/request_replay.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "qsa/traces/rng.hpp"

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {

namespace {

constexpr int64_t kMaxWindowIndex = int64_t{1} << 40;

int64_t window_bound(const std::string& text, const std::string& whole) {
  if (text.empty() || text.size() > 13 || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(Error{"--window", -1, "not-a-window",
                           "'" + whole.substr(0, 40) + "' is not FROM:TO (0-based request indices, TO exclusive, "
                           "either side may be empty: 100:200, :50, 1000:)"});
  const int64_t value = std::stoll(text);
  if (value > kMaxWindowIndex)
    throw InputError(Error{"--window", -1, "out-of-range", "request index " + text + " is beyond 2^40"});
  return value;
}

// content_hashes and family_len (request_replay.hpp): from the last arrival back, each strict
// prefix of a request's hashes maps to the earliest later request that extends it.
void extend_by_later_turns(RequestSchedule& s) {
  std::unordered_map<uint64_t, size_t> extended_by;  // chain of the first k hashes -> a request with more
  const int64_t h = s.hash_block_positions;
  for (size_t i = s.arrivals.size(); i-- > 0;) {
    LoggedArrival& a = s.arrivals[i];
    a.content_hashes = a.whole_hashes;
    std::vector<uint64_t> chains;
    uint64_t chain = 0x6c6f67ull;
    for (int64_t hash : a.whole_hashes) chains.push_back(chain = hash_words(chain, static_cast<uint64_t>(hash)));
    if (a.family >= 0 && !chains.empty()) {
      const auto it = extended_by.find(chains.back());
      if (it != extended_by.end()) {
        const std::vector<int64_t>& longer = s.arrivals[it->second].whole_hashes;
        const auto committed = static_cast<size_t>((a.prompt_len + a.output_len - 1) / h);
        const size_t n = std::min(longer.size(), committed);
        if (n > a.content_hashes.size()) a.content_hashes.assign(longer.begin(), longer.begin() + static_cast<std::ptrdiff_t>(n));
        if (static_cast<int64_t>(n) * h > a.prompt_len) a.family_len = static_cast<int64_t>(n) * h;
      }
    }
    for (size_t k = 0; k + 1 < chains.size(); ++k) extended_by[chains[k]] = i;
  }
}

}  // namespace

RequestWindow parse_request_window(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) window_bound("", text);  // throws not-a-window
  RequestWindow w;
  const std::string from = text.substr(0, colon), to = text.substr(colon + 1);
  if (!from.empty()) w.from = window_bound(from, text);
  if (!to.empty()) w.to = window_bound(to, text);
  if (w.to >= 0 && w.to <= w.from)
    throw InputError(Error{"--window", -1, "out-of-range", "'" + text + "' holds no request (TO must exceed FROM)"});
  return w;
}

int64_t shared_prefix_positions(const RequestSchedule& s, const LoggedArrival& a, const LoggedArrival& b) {
  const size_t n = std::min(a.whole_hashes.size(), b.whole_hashes.size());
  size_t i = 0;
  while (i < n && a.whole_hashes[i] == b.whole_hashes[i]) ++i;
  return static_cast<int64_t>(i) * s.hash_block_positions;
}

Workload workload_from_request_log(const RequestLog& log, const ReplayOptions& options) {
  const auto total = static_cast<int64_t>(log.requests.size());
  const int64_t from = options.window.from;
  const int64_t to = options.window.to < 0 ? total : std::min(options.window.to, total);
  if (from >= total)
    throw InputError(Error{"--window", -1, "out-of-range",
                           "the window starts at request " + std::to_string(from) + " but " + log.path + " holds " +
                               std::to_string(total) + " (indices 0 ... " + std::to_string(total - 1) + ")"});
  const std::vector<LoggedRequest> window(log.requests.begin() + from, log.requests.begin() + to);
  const bool hashes = std::any_of(window.begin(), window.end(), [](const LoggedRequest& q) { return !q.hash_ids.empty(); });
  if (hashes && log.hash_block_tokens % options.length_scale != 0)
    throw InputError(Error{"--length-scale", -1, "not-a-divisor",
                           "--length-scale " + std::to_string(options.length_scale) +
                               " does not divide the hash block of " + std::to_string(log.hash_block_tokens) +
                               " tokens: a shared hash block would not cover whole positions"});

  auto schedule = std::make_shared<RequestSchedule>();
  schedule->path = log.path;
  schedule->options = options;
  schedule->hash_block_positions = log.hash_block_tokens / options.length_scale;
  schedule->figures = figures_of(window, log.hash_block_tokens);
  // Families: first whole hash blocks that two or more requests of the window start with.
  std::map<int64_t, int64_t> starts;
  for (const LoggedRequest& q : window)
    if (q.prompt_tokens >= log.hash_block_tokens && !q.hash_ids.empty()) ++starts[q.hash_ids[0]];
  std::map<int64_t, int64_t> family_of;
  const int64_t ms_per_step = kReplayStepMs * options.time_compression;
  std::vector<int64_t> prompts, outputs;
  for (size_t i = 0; i < window.size(); ++i) {
    const LoggedRequest& q = window[i];
    LoggedArrival a;
    a.index = from + static_cast<int64_t>(i);
    a.step = (q.arrival_ms - window.front().arrival_ms) / ms_per_step;
    a.arrival_us = (q.arrival_ms - window.front().arrival_ms) * 1000 / options.time_compression;
    a.prompt_len = scaled_length(q.prompt_tokens, options.length_scale);
    a.output_len = scaled_length(q.output_tokens, options.length_scale);
    const auto whole = static_cast<size_t>(q.prompt_tokens / log.hash_block_tokens);
    a.whole_hashes.assign(q.hash_ids.begin(), q.hash_ids.begin() + static_cast<std::ptrdiff_t>(std::min(whole, q.hash_ids.size())));
    if (!a.whole_hashes.empty() && starts[a.whole_hashes[0]] >= 2)
      a.family = family_of.emplace(a.whole_hashes[0], static_cast<int64_t>(family_of.size())).first->second;
    schedule->positions += a.prompt_len + a.output_len - 1;
    prompts.push_back(q.prompt_tokens);
    outputs.push_back(q.output_tokens);
    schedule->arrivals.push_back(std::move(a));
  }
  schedule->step_limit = 2 * schedule->positions;
  extend_by_later_turns(*schedule);

  Workload w = workload_by_name("default");
  w.name = "requests";
  w.description = "requests " + std::to_string(from) + ":" + std::to_string(to) + " of " + log.path;
  // B no larger than a hash block's positions, so that one shared hash block is a hit (with
  // B > H a single shared block, a system prompt say, would share nothing).
  w.geometries.clear();
  for (const int64_t b : {16, 64})
    if (!hashes || b <= schedule->hash_block_positions) w.geometries.push_back({4, 3, b});
  if (w.geometries.empty())
    throw InputError(Error{"--length-scale", -1, "hash-block-below-B",
                           "the log's hash block of " + std::to_string(log.hash_block_tokens) + " tokens covers " +
                               std::to_string(schedule->hash_block_positions) + " positions at --length-scale " +
                               std::to_string(options.length_scale) +
                               ", fewer than the smallest block size B = 16: no prefix could be shared. Use a "
                               "--length-scale of at most " + std::to_string(std::max<int64_t>(1, log.hash_block_tokens / 16)) +
                               " (or check --hash-block)"});
  w.prompt_tokens = LengthTable::from_samples(prompts);  // sizes max_position and the pool
  w.output_tokens = LengthTable::from_samples(outputs);
  w.prompt_length_scale = options.length_scale;
  w.output_length_scale = options.length_scale;
  w.arrivals_per_step_milli = 0;
  w.trace_requests_per_ks = 0;
  w.initial_requests = 0;
  w.max_requests = static_cast<int64_t>(window.size());
  w.preempt_per_mille = options.preempt_per_mille;
  w.family_per_mille = 0;
  w.num_families = 0;
  w.negative_slot_per_mille = 30;  // not in a log; keeps the path covered, as the Azure fit does
  w.config.max_num_batched_tokens = options.token_budget;
  w.config.max_num_seqs = options.max_num_seqs;
  w.fixed_compressed_blocks = options.cache_blocks;
  w.prefilled_context = options.prefilled_context;
  w.schedule = std::move(schedule);
  return w;
}

}  // namespace qsa::traces
