// From a workload model to the concrete configuration of one scenario.
#include <algorithm>

#include "qsa/numerics.hpp"
#include "qsa/traces/choice.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"
#include "qsa/traces/workloads.hpp"

namespace qsa::traces {

int64_t arrival_rate_milli(const Workload& w) {
  if (w.trace_requests_per_ks <= 0) return w.arrivals_per_step_milli;
  // requests per 1000 s × seconds per step × 1000 (milli) × output scale.
  return w.trace_requests_per_ks * w.step_ms * std::max<int64_t>(1, w.output_length_scale) / 1000;
}

namespace {

int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

// MRoPE sections (t, h, w) summing to hp, leaning to the edges: all pairs on one axis, an empty
// axis, one pair on an axis, or any split. Only h and w below hp change which pairs take which
// axis, so a split that gives every pair the axis the proportional one gives is drawn again:
// otherwise a kernel that ignores the given sections would pass.
std::array<int64_t, 3> draw_mrope_split(Rng& rng, const ScenarioConfig& config) {
  ScenarioConfig proportional = config;
  proportional.mrope_split.reset();
  const MropeSections usual = proportional.mrope_sections();
  const int64_t hp = config.rotary_dim / 2;
  RngChoice c(rng);
  std::array<int64_t, 3> split{hp, 0, 0};
  for (int attempt = 0; attempt < 64; ++attempt) {
    const int64_t h = c.edge_range(0, hp);
    const int64_t w = c.edge_range(0, hp - h);
    split = {hp - h - w, h, w};
    // Rotate, so that t is as often the full or the empty axis as h and w.
    std::rotate(split.begin(), split.begin() + c.range(0, 2), split.end());
    for (int64_t pair = 0; pair < hp; ++pair)
      if (mrope_axis(pair, split) != mrope_axis(pair, usual)) return split;
  }
  return split;  // hp < 2: every split gives every pair axis t
}

Workload resolve(const Workload& workload, Rng& rng, uint64_t seed) {
  if (!workload.mix.empty()) {
    const uint64_t n = workload.mix.size();
    Workload member = resolve(workload.mix[workload.mix_in_turn ? seed % n : rng.below(n)], rng, seed);
    member.config.workload = workload.name + ":" + member.name;
    return member;
  }
  Workload w = workload;
  ScenarioConfig& c = w.config;
  if (!w.geometries.empty()) {
    const Geometry g = w.geometries[rng.below(w.geometries.size())];
    c.compress_ratio = g.compress_ratio;
    c.num_speculative_tokens = g.num_speculative_tokens;
    c.block_size = g.block_size;
  }
  w.geometries = {{c.compress_ratio, c.num_speculative_tokens, c.block_size}};
  if (w.draw_mrope_split && c.mrope) c.mrope_split = draw_mrope_split(rng, c);
  Error error;
  if (ring_capacity(c.compress_ratio, c.num_speculative_tokens, c.block_size, c.ring_rule, &c.ring_capacity, &error) !=
      Status::kOk)
    throw InputError(error);
  if (c.block_size % c.compress_ratio != 0)
    throw InputError(Error{"block_size", -1, "not-divisible", "B must be a multiple of C"});
  if (c.max_num_batched_tokens < 1 + c.num_speculative_tokens)
    throw InputError(
        Error{"max_num_batched_tokens", -1, "out-of-range", "the budget must hold one decode (1 + drafts rows)"});

  // A request's committed length stays below prompt + output, so no position reaches longest.
  const int64_t longest = scaled_length(w.prompt_tokens.max(), w.prompt_length_scale) +
                          scaled_length(w.output_tokens.max(), w.output_length_scale);
  c.max_position = round_up(longest + 128, 64);  // >= 64 spare for MRoPE positions past the logical one
  if (w.fixed_max_position > 0) c.max_position = w.fixed_max_position;  // the step-edges members' table sizes
  const int64_t blocks_per_request = (longest - 1) / c.block_size + 1;
  const int64_t full_pool = c.max_num_seqs * blocks_per_request;
  // Floor: one full-length request plus slack, so a lone request always makes progress.
  c.num_compressed_blocks = std::max(full_pool * w.compressed_pool_per_mille / 1000, blocks_per_request + 2);
  if (w.fixed_compressed_blocks > 0) {
    if (w.fixed_compressed_blocks < blocks_per_request + 2)
      throw InputError(Error{"--cache-blocks", -1, "out-of-range",
                             std::to_string(w.fixed_compressed_blocks) + " blocks cannot hold the longest request (" +
                                 std::to_string(blocks_per_request) + " blocks of B = " + std::to_string(c.block_size) +
                                 "): give at least " + std::to_string(blocks_per_request + 2)});
    c.num_compressed_blocks = w.fixed_compressed_blocks;
  }
  c.num_ring_blocks = 2 * c.max_num_seqs;  // twice the running cap, so ring block ids vary too
  c.workload = w.name;
  // Checked before the simulator allocates anything (SPEC 1.3 allows requests of 2^24 tokens; the
  // dense caches cannot hold them on one machine).
  try {
    check_cache_budget(c, "workload", -1,
                       "workload " + w.name + ", longest request " + std::to_string(longest) + " tokens");
  } catch (const InputError& e) {
    Error budget = e.error();
    budget.message +=
        ". SPEC 1.3 allows such requests and token budgets: the caches are sparse (memory follows the blocks "
        "in use), so raising the limit admits them; or shorten the requests or lower the token budget";
    throw InputError(budget);
  }
  return w;
}

}  // namespace

Workload resolve_workload(const Workload& workload, uint64_t seed) {
  Rng rng(hash_words(seed, 0x776f726b6c6f6164ull));  // "workload"
  Workload w = resolve(workload, rng, seed);
  w.mix.clear();
  w.config.seed = seed;
  return w;
}

}  // namespace qsa::traces
