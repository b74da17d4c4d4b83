#include "scenario_builder.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qsa/ring_capacity.hpp"

namespace qsa::fuzz {
namespace {

using traces::ChunkRecord;
using traces::ScenarioConfig;
using traces::StepRecord;

struct Request {
  int64_t id = 0;
  int64_t family = -1;
  int64_t prompt_len = 0;
  int64_t final_len = 0;      // finishes once this many positions are committed
  int64_t committed = 0;      // L
  bool started = false;       // holds a ring block and its blocks (since its last (re)start)
  bool ever_started = false;  // a restarted (preempted) request recomputes from position 0
  std::vector<int32_t> blocks;
  int32_t ring_block = -1;
};

ScenarioConfig decode_config(Decoder& in) {
  ScenarioConfig c;
  c.workload = "fuzz";
  c.seed = static_cast<uint64_t>(in.range(0, 1 << 16));
  c.compress_ratio = in.pick({2, 4, 4, 8});
  c.num_speculative_tokens = in.range(0, 4);
  const int64_t seed_ring = seed_ring_capacity(c.compress_ratio, c.num_speculative_tokens);
  c.ring_rule = RingRule::kSeed;
  c.block_size = seed_ring * in.pick({1, 1, 2, 3, 4});
  if (in.range(0, 3) == 0) {  // the widening rule on a block size the seed rule may refuse
    const int64_t b = c.compress_ratio * in.range(1, 12);
    int64_t r = 0;
    Error error;
    if (ring_capacity(c.compress_ratio, c.num_speculative_tokens, b, RingRule::kWiden, &r, &error) == Status::kOk) {
      c.ring_rule = RingRule::kWiden;
      c.block_size = b;
    }
  }
  Error error;
  int64_t r = 0;
  if (ring_capacity(c.compress_ratio, c.num_speculative_tokens, c.block_size, c.ring_rule, &r, &error) != Status::kOk)
    finding("fuzz_scenario", "builder", "no ring capacity for the chosen geometry: " + to_string(error));
  c.ring_capacity = r;
  c.head_dim = 32;
  c.rotary_dim = in.pick({32, 16, 16, 8, 2, 2 * in.range(1, 16)});
  c.num_heads = in.range(1, 2);
  c.mrope = in.flag();
  c.store_dtype = in.flag() ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
  c.eps = in.range(0, 7) == 0 ? 1e-2f : 1e-6f;
  c.rope_theta = in.range(0, 3) == 0 ? 1e4 : 1e7;
  c.max_position = in.pick({256, 384, 512});
  c.num_compressed_blocks = in.range(4, 40);
  c.num_ring_blocks = in.range(2, 8);
  c.max_num_batched_tokens = 256;
  c.max_num_seqs = 16;
  return c;
}

class Builder {
 public:
  explicit Builder(Decoder& in) : in_(in) {}

  traces::Scenario build() {
    traces::Scenario s;
    s.config = decode_config(in_);
    c_ = s.config;
    for (int32_t b = 0; b < c_.num_compressed_blocks; ++b) free_blocks_.push_back(b);
    for (int32_t b = 0; b < c_.num_ring_blocks; ++b) free_rings_.push_back(b);
    for (int64_t i = 0; i < kMaxScenarioSteps && !in_.empty(); ++i) s.steps.push_back(step());
    return s;
  }

 private:
  int64_t max_end() const { return c_.max_position - 64; }  // start + length never passes it

  void arrive() {
    if (waiting_.size() >= 8) return;
    Request r;
    r.id = next_id_++;
    r.family = in_.range(0, 2) == 0 ? -1 : in_.range(0, 2);
    const int64_t c = c_.compress_ratio;
    const int64_t b = c_.block_size;
    const int64_t ring = c_.ring_capacity;
    r.prompt_len = in_.edgy(
        1, 100, {1, c - 1, c, c + 1, ring - 1, ring, ring + 1, b - 1, b, b + 1, 2 * b, 2 * b + 1, 3 * b + c - 1});
    const int64_t output = in_.edgy(1, 40, {1, 2, c, ring + 1});
    r.final_len = std::min(r.prompt_len + output, max_end() - c_.num_speculative_tokens - 1);
    r.prompt_len = std::min(r.prompt_len, r.final_len);
    waiting_.push_back(r);
  }

  int32_t take(std::vector<int32_t>& pool) {
    const auto i = static_cast<size_t>(in_.range(0, static_cast<int64_t>(pool.size()) - 1));
    const int32_t id = pool[i];
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(i));
    return id;
  }

  void release(Request& r) {
    for (int32_t b : r.blocks)
      if (--holders_[b] == 0) free_blocks_.push_back(b);
    r.blocks.clear();
    if (r.ring_block >= 0) free_rings_.push_back(r.ring_block);
    r.ring_block = -1;
    r.committed = 0;
    r.started = false;
  }

  // A prefix hit for a fresh family member: k full prompt blocks of a live peer, or 0.
  int64_t prefix_hit(const Request& r, std::vector<int32_t>* shared) {
    if (r.family < 0 || r.ever_started || !in_.flag()) return 0;
    for (const Request& p : running_) {
      if (p.family != r.family || !p.started) continue;
      const int64_t k_max = std::min({p.committed, p.prompt_len, r.prompt_len - 1}) / c_.block_size;
      if (k_max < 1 || static_cast<int64_t>(p.blocks.size()) < k_max) continue;
      const int64_t k = in_.range(1, k_max);
      shared->assign(p.blocks.begin(), p.blocks.begin() + k);
      return k * c_.block_size;
    }
    return 0;
  }

  // The chunk of request r this step (nullopt: not scheduled); updates the pools and r's blocks.
  std::optional<ChunkRecord> schedule(Request& r, int64_t* budget, bool zero_length) {
    ChunkRecord chunk;
    chunk.request = r.id;
    chunk.family = r.family;
    chunk.prompt_len = r.prompt_len;
    if (zero_length) {  // a running request with no rows this step
      chunk.start = r.committed;
      chunk.blocks = r.blocks;
      chunk.ring_block = r.ring_block;
      return chunk;
    }
    if (*budget <= 0) return std::nullopt;
    std::vector<int32_t> shared;
    int64_t start = r.committed;
    if (!r.started) {
      if (free_rings_.empty()) return std::nullopt;
      start = prefix_hit(r, &shared);
    }
    const int64_t c = c_.compress_ratio;
    const int64_t ring = c_.ring_capacity;
    int64_t length = 0;
    int64_t accepted = 0;
    if (start < r.prompt_len) {  // a prefill chunk, accepted whole
      const int64_t rest = r.prompt_len - start;
      length = std::min(in_.edgy(1, rest, {1, 2, c - 1, c, c + 1, ring - 1, ring, ring + 1, c_.block_size, rest, rest}),
                        *budget);
      accepted = length;
    } else {  // a decode: 1 + k rows, the first always accepted
      const int64_t k = std::min({in_.range(0, c_.num_speculative_tokens), *budget - 1, max_end() - start - 1});
      if (k < 0) return std::nullopt;
      length = 1 + k;
      accepted = 1 + in_.range(0, k);
    }

    // Blocks: the shared prefix, then the request's own, covering every position written.
    const auto have = static_cast<int64_t>(r.started ? r.blocks.size() : shared.size());
    const auto free_blocks = static_cast<int64_t>(free_blocks_.size());
    if ((start + length - 1) / c_.block_size + 1 - have > free_blocks) {
      // Not enough free blocks: shorten a prefill chunk to the blocks there are.
      const int64_t coverable = (have + free_blocks) * c_.block_size;
      if (start >= r.prompt_len || coverable <= start) return std::nullopt;
      length = std::min(length, coverable - start);
      accepted = length;
    }
    if (!r.started) {
      r.blocks = shared;
      for (int32_t b : shared) ++holders_[b];
      r.ring_block = take(free_rings_);
      r.started = true;
      r.ever_started = true;
      r.committed = start;
    }
    while (static_cast<int64_t>(r.blocks.size()) <= (start + length - 1) / c_.block_size) {
      const int32_t b = take(free_blocks_);
      ++holders_[b];
      r.blocks.push_back(b);
    }

    chunk.start = start;
    chunk.length = length;
    chunk.accepted = accepted;
    chunk.blocks = r.blocks;
    chunk.ring_block = r.ring_block;
    // Negative common slots only on generated positions (their groups then have no compressed row).
    if (start + length > r.prompt_len && in_.range(0, 3) == 0)
      for (int64_t o = std::max<int64_t>(0, r.prompt_len - start); o < length; ++o)
        if (in_.flag()) chunk.negative_common_slots.push_back(o);
    *budget -= length;
    return chunk;
  }

  StepRecord step() {
    StepRecord st;
    for (int64_t n = in_.range(0, 2) + (running_.empty() && waiting_.empty() ? 1 : 0); n > 0; --n) arrive();
    int64_t budget = in_.edgy(1, 256, {1, 2, 4, 8, 16, 64, 256});

    // Running requests first (their decodes), then waiting ones in arrival order; each may be
    // skipped, and a running one may get a zero-length entry.
    std::vector<int64_t> scheduled;
    for (Request& r : running_) {
      const int64_t choice = in_.range(0, 7);
      if (choice == 0) continue;
      if (auto chunk = schedule(r, &budget, choice == 1)) {
        st.chunks.push_back(std::move(*chunk));
        scheduled.push_back(r.id);
      }
    }
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (in_.range(0, 3) == 0) {
        ++it;
        continue;
      }
      auto chunk = schedule(*it, &budget, false);
      if (!chunk) {
        ++it;
        continue;
      }
      st.chunks.push_back(std::move(*chunk));
      scheduled.push_back(it->id);
      running_.push_back(*it);
      it = waiting_.erase(it);
    }
    if (in_.range(0, 3) == 0 && st.chunks.size() > 1) {  // another batch order (decodes need not come first)
      const auto i = static_cast<size_t>(in_.range(0, static_cast<int64_t>(st.chunks.size()) - 1));
      std::swap(st.chunks[0], st.chunks[i]);
    }

    // CUDA-graph padding and the decode threshold.
    st.padded_requests = in_.range(0, 7) == 0 ? in_.range(1, 3) : 0;
    st.padding_tokens = in_.range(0, 3) == 0 ? in_.edgy(1, 16, {1, 3, 8}) : 0;
    if (st.chunks.empty() && st.padded_requests == 0) st.padded_requests = 1;  // a batch has at least one request
    st.reorder_batch_threshold =
        in_.pick({1 + c_.num_speculative_tokens, 1 + c_.num_speculative_tokens, 1, in_.range(1, 8)});

    // Verification, then finishes and preemptions.
    for (const ChunkRecord& chunk : st.chunks) find(chunk.request).committed = chunk.start + chunk.accepted;
    for (auto it = running_.begin(); it != running_.end();) {
      const bool ran = std::find(scheduled.begin(), scheduled.end(), it->id) != scheduled.end();
      if ((ran && it->committed >= it->final_len) || in_.range(0, 63) == 0) {
        st.finished.push_back(it->id);
        release(*it);
        it = running_.erase(it);
      } else if (in_.range(0, 15) == 0) {
        st.preempted.push_back(it->id);
        release(*it);
        waiting_.push_front(*it);
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
    return st;
  }

  Request& find(int64_t id) {
    for (Request& r : running_)
      if (r.id == id) return r;
    finding("fuzz_scenario", "builder", "request " + std::to_string(id) + " is not running");
  }

  Decoder& in_;
  ScenarioConfig c_;
  std::vector<Request> running_;
  std::deque<Request> waiting_;
  std::vector<int32_t> free_blocks_;
  std::vector<int32_t> free_rings_;
  std::map<int32_t, int64_t> holders_;
  int64_t next_id_ = 0;
};

}  // namespace

traces::Scenario build_scenario(Decoder& in) { return Builder(in).build(); }

}  // namespace qsa::fuzz
