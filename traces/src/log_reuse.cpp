#include "qsa/traces/log_reuse.hpp"

#include <algorithm>
#include <unordered_set>

#include "qsa/traces/rng.hpp"
#include "qsa/traces/length_table.hpp"

namespace qsa::traces {

LogReuse log_implied_reuse(const RequestLog& log, const ReplayOptions& options, int64_t block_size) {
  LogReuse r;
  const auto total = static_cast<int64_t>(log.requests.size());
  const int64_t to = options.window.to < 0 ? total : std::min(options.window.to, total);
  const int64_t h = log.hash_block_tokens / std::max<int64_t>(1, options.length_scale);
  std::unordered_set<uint64_t> seen;  // every leading run of whole hashes an earlier request logged
  for (int64_t i = options.window.from; i < to; ++i) {
    const LoggedRequest& q = log.requests[static_cast<size_t>(i)];
    const int64_t prompt = scaled_length(q.prompt_tokens, options.length_scale);
    r.prompt_positions += prompt;
    const auto whole = std::min(q.hash_ids.size(), static_cast<size_t>(q.prompt_tokens / log.hash_block_tokens));
    uint64_t run = 0x72756eull;
    int64_t equal = 0;
    bool matching = true;
    for (size_t k = 0; k < whole; ++k) {
      run = hash_words(run, static_cast<uint64_t>(q.hash_ids[k]));
      matching = matching && seen.count(run) > 0;
      if (matching) ++equal;
      seen.insert(run);
    }
    r.per_request.push_back(std::min(equal * h, std::max<int64_t>(0, prompt - 1)) / block_size * block_size);
    r.reusable_positions += r.per_request.back();
  }
  return r;
}

}  // namespace qsa::traces
