#include "scenario_builder.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qsa/ring_capacity.hpp"
#include "qsa/traces/json_reader.hpp"
#include "qsa/traces/scenario_file.hpp"

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

// Rows of a step times the query heads times D stay under this, so a step's Q path (and its
// oracle) costs about the same at every geometry: the budget of rows follows HQ and D.
constexpr int64_t kMaxStepQueryElements = int64_t{1} << 17;
// The compressed cache holds at most this many bytes (at least 4 blocks), whatever S and D are.
constexpr int64_t kMaxCompressedCacheBytes = int64_t{8} << 20;

// Whether validate_config (the rules `check --head-dim ...` applies) accepts `c`. A rejection must
// name one of `fields`, the fields of the part just drawn: anything else is a finding.
bool accepted(const ScenarioConfig& c, std::initializer_list<const char*> fields) {
  try {
    validate_config(c);
    return true;
  } catch (const InputError& e) {
    for (const char* field : fields)
      if (e.error().field == field) return false;
    finding("fuzz_scenario", "validate_config",
            std::string("a geometry part was rejected naming another field: ") + e.what());
  }
}

// R for the config's C, drafts, B and rule by SPEC 3 (qsa::ring_capacity); 0 when the rule refuses
// B, which validate_config then reports.
void set_ring(ScenarioConfig& c) {
  int64_t r = 0;
  Error error;
  c.ring_capacity =
      ring_capacity(c.compress_ratio, c.num_speculative_tokens, c.block_size, c.ring_rule, &r, &error) == Status::kOk
          ? r
          : 0;
}

// C, drafts, B and the ring rule: the small geometry's values, the real model's (SPEC 9) and values
// past each rule's edge. Rejected: the small geometry (C in {2, 4, 8}, 0-4 drafts, B a multiple of
// R, or the widening rule on a B the seed rule refuses), valid by construction.
void draw_cache_geometry(Decoder& in, ScenarioConfig& c) {
  c.compress_ratio = in.pick({2, 4, 4, 8, 3, in.range(1, 17)});
  c.num_speculative_tokens = in.pick({in.range(0, 4), in.range(0, 4), in.range(0, 8), 64, 65});
  c.ring_rule = in.range(0, 3) == 0 ? RingRule::kWiden : RingRule::kSeed;
  const int64_t seed_ring =
      c.num_speculative_tokens <= 64 ? seed_ring_capacity(c.compress_ratio, c.num_speculative_tokens) : 1;
  c.block_size = in.pick({seed_ring * in.pick({1, 1, 2, 3, 4}), c.compress_ratio * in.range(1, 12),
                          in.pick({16, 784, 800, 848, 1568, 1600, 1616}), in.range(1, 64)});
  set_ring(c);
  if (accepted(c,
               {"config.compress_ratio", "config.num_speculative_tokens", "config.block_size", "config.ring_capacity"}))
    return;
  c.compress_ratio = in.pick({2, 4, 4, 8});
  c.num_speculative_tokens = in.range(0, 4);
  c.ring_rule = RingRule::kSeed;
  c.block_size = seed_ring_capacity(c.compress_ratio, c.num_speculative_tokens) * in.pick({1, 1, 2, 3, 4});
  if (in.range(0, 3) == 0) {  // the widening rule on a block size the seed rule may refuse
    ScenarioConfig widened = c;
    widened.ring_rule = RingRule::kWiden;
    widened.block_size = c.compress_ratio * in.range(1, 12);
    set_ring(widened);
    if (widened.ring_capacity > 0) c = widened;
  }
  set_ring(c);  // (fuzz_scenario validates the whole config once the builder is done)
}

// D, rd, HQ and the MRoPE sections, each drawn around its rule's edges and kept only when
// validate_config accepts it (else the small geometry's value).
void draw_head_geometry(Decoder& in, ScenarioConfig& c) {
  const int64_t d = in.pick({32, 32, 64, 128, 256, 512, 16, 1024, 48, in.range(0, 600)});
  c.head_dim = d;
  if (!accepted(c, {"config.head_dim"})) c.head_dim = 32;
  const int64_t rd =
      in.pick({16, 32, 16, 8, 2, c.head_dim, c.head_dim / 2, 2 * in.range(1, 16), in.range(0, c.head_dim + 2)});
  c.rotary_dim = rd;
  if (!accepted(c, {"config.rotary_dim"})) c.rotary_dim = 16;
  c.num_heads = in.pick({1, 2, 4, in.range(1, 8), 64, 65, 0});
  if (!accepted(c, {"config.num_heads"})) c.num_heads = 2;
  c.mrope = in.flag();
  if (c.mrope && in.range(0, 3) == 0) {  // own sections (t, h, w), summing to rd / 2 or not
    const int64_t hp = c.rotary_dim / 2;
    const int64_t t = in.range(0, hp);
    const int64_t h = in.range(0, hp - t);
    c.mrope_split = std::array<int64_t, 3>{t, h, in.flag() ? hp - t - h : in.range(-1, hp + 1)};
    if (!accepted(c, {"config.mrope_sections"})) c.mrope_split.reset();
  }
}

ScenarioConfig decode_config(Decoder& in) {
  ScenarioConfig c;
  c.workload = "fuzz";
  c.seed = static_cast<uint64_t>(in.range(0, 1 << 16));
  c.num_compressed_blocks = 1;  // (sized below, once S and D are known)
  c.num_ring_blocks = 1;
  draw_cache_geometry(in, c);
  draw_head_geometry(in, c);
  c.store_dtype = in.flag() ? StoreDtype::kFp8E4m3 : StoreDtype::kBf16;
  c.eps = in.range(0, 7) == 0 ? 1e-2f : 1e-6f;
  c.rope_theta = in.range(0, 3) == 0 ? 1e4 : 1e7;
  // Room for two blocks and a bit (prefix hits) at large B, for the decodes' drafts at many drafts.
  c.max_position = std::max(
      {in.pick({256, 384, 512}), std::min<int64_t>(2 * c.block_size + 128, 4096), 2 * c.num_speculative_tokens + 192});
  const int64_t block_bytes = c.storage_block_size() * c.head_dim * element_bytes(c.store_dtype);
  c.num_compressed_blocks = std::min(in.range(4, 40), std::max<int64_t>(4, kMaxCompressedCacheBytes / block_bytes));
  c.num_ring_blocks = in.range(2, 8);
  c.max_num_batched_tokens = std::clamp<int64_t>(kMaxStepQueryElements / (c.num_heads * c.head_dim), 4, 256);
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
    int64_t budget = std::min(in_.edgy(1, 256, {1, 2, 4, 8, 16, 64, 256}), c_.max_num_batched_tokens);

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
