#include "qsa/traces/scenario.hpp"

#include "qsa/traces/alternative_content.hpp"

#include <algorithm>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {

const char* to_string(BlockTableLayout layout) {
  switch (layout) {
    case BlockTableLayout::kRows:
      return "rows";
    case BlockTableLayout::kColumnMajor:
      return "column-major";
    case BlockTableLayout::kColumnSlice:
      return "column-slice";
  }
  return "unknown";
}

MropeSections ScenarioConfig::mrope_sections() const {
  if (!mrope) return std::nullopt;
  if (mrope_split) return mrope_split;
  // The real model splits 32 pairs as (11, 11, 10); other sizes keep those proportions.
  const int64_t hp = rotary_dim / 2;
  const int64_t h = (hp * 11 + 31) / 32;
  // Rounding both up overshoots a single pair (rd = 2 gave (-1, 1, 1), which validate_step()
  // rejects on every step: fuzz/FINDINGS.md); w takes what is left. Unchanged for rd >= 4.
  const int64_t w = std::min((hp * 10 + 31) / 32, hp - h);
  return std::array<int64_t, 3>{hp - h - w, h, w};
}

void ScenarioConfig::add_special_weights(StepConfig* c) const {
  // Content version 2 (docs/content.md): a quarter of the scenarios get subnormal norm weights on
  // one or two elements (1 + w rounds to 1), one in sixteen a NaN or an infinity on one element of
  // w_k or w_q (every row's result at that element is then NaN or infinite). Never on elements 3,
  // 6 and 8 (their large weights exercise fp8 saturation). From a stream of its own, so the
  // weights above are those of version 1.
  Rng rng(hash_words(seed, 0x73706377ull));  // "spcw"
  auto element = [&] {
    int64_t d = 3;
    while (d == 3 || d == 6 || d == 8) d = rng.range(0, head_dim - 1);
    return static_cast<size_t>(d);
  };
  auto sign = [&] { return static_cast<Bf16>(rng.chance(1, 2) ? 0x8000u : 0u); };
  if (rng.chance(1, 4)) {
    const int64_t count = rng.range(1, 2);
    for (int64_t i = 0; i < count; ++i) {
      std::vector<Bf16>& w = rng.chance(1, 2) ? c->w_k : c->w_q;
      w[element()] = static_cast<Bf16>(sign() | rng.range(1, 0x7F));
    }
  }
  if (rng.chance(1, 16)) {
    std::vector<Bf16>& w = rng.chance(1, 2) ? c->w_k : c->w_q;
    w[element()] = rng.chance(1, 2) ? static_cast<Bf16>(0x7FC0u) : static_cast<Bf16>(sign() | 0x7F80u);
  }
}

StepConfig ScenarioConfig::step_config() const {
  StepConfig c;
  c.compress_ratio = compress_ratio;
  c.storage_block_size = storage_block_size();
  c.ring_capacity = ring_capacity;
  c.head_dim = head_dim;
  c.rotary_dim = rotary_dim;
  c.num_heads = num_heads;
  c.eps = eps;
  c.mrope_sections = mrope_sections();
  c.ring_positions = mrope;
  c.store_dtype = store_dtype;
  c.max_position = max_position;
  std::vector<Bf16> table = make_cos_sin_table(rope_theta, rotary_dim, max_position);
  if (content_version >= 4) add_tiny_rope_entries(seed, rotary_dim, max_position, &table);
  c.cos_sin = std::make_shared<const std::vector<Bf16>>(std::move(table));
  // Norm weights near zero, as trained Gemma weights are (the norm multiplies by 1 + w), except a
  // few large ones on elements that carry the keys' origin digits, so some stored values exceed
  // 448 and fp8 saturation is exercised.
  Rng rng(hash_words(seed, 0x776569676874ull));
  auto weight = [&](bool large) {
    if (!large) return bf16_from_float(static_cast<float>(rng.range(-64, 64)) / 256.0f);
    const float magnitude = static_cast<float>(rng.range(96, 160));  // |1 + w| > 80: saturates for every seed
    return bf16_from_float(rng.chance(1, 2) ? magnitude : -magnitude);
  };
  for (int64_t d = 0; d < head_dim; ++d) {
    const bool large = d == 3 || d == 6 || d == 8;
    c.w_k.push_back(weight(large));
    c.w_q.push_back(weight(large));
  }
  if (content_version >= 2) add_special_weights(&c);
  if (special_weights) {
    // Every row's norm output at these elements is NaN, infinite or (for -0) as for +0: a kernel
    // that takes |w|, replaces NaN or flushes the sign shows on every row (SPEC 6.2).
    c.w_k[1] = 0x7FC0u;  // NaN
    c.w_q[2] = 0xFF80u;  // -inf
    c.w_k[7] = 0x7F80u;  // +inf
    c.w_k[4] = 0x8000u;  // -0
    c.w_q[5] = 0x8000u;
  }
  return c;
}

Coverage& Coverage::operator+=(const Coverage& o) {
  steps += o.steps;
  rows += o.rows;
  requests += o.requests;
  ring_wraps += o.ring_wraps;
  drafts_rejected += o.drafts_rejected;
  preemptions += o.preemptions;
  prefix_hits += o.prefix_hits;
  padded_steps += o.padded_steps;
  groups_closed += o.groups_closed;
  negative_common_slots += o.negative_common_slots;
  mrope_steps += o.mrope_steps;
  fp8_steps += o.fp8_steps;
  return *this;
}

namespace {

// Committed positions p in [start, end) with p >= period and p mod period = 0.
int64_t wraps_between(int64_t start, int64_t end, int64_t period) {
  auto below = [&](int64_t x) { return x > 0 ? (x - 1) / period : 0; };  // multiples m >= 1 with m * period < x
  return below(end) - below(start);
}

}  // namespace

void CoverageCounter::add(const StepRecord& step) {
  // docs/workloads.md "Coverage figures" defines each count.
  Coverage& c = coverage_;
  const int64_t cr = config_.compress_ratio;
  const int64_t r = config_.ring_capacity;
  const int64_t b = config_.block_size;
  ++c.steps;
  if (config_.mrope) ++c.mrope_steps;
  if (config_.store_dtype == StoreDtype::kFp8E4m3) ++c.fp8_steps;
  if (step.padded_requests > 0 || step.padding_tokens > 0) ++c.padded_steps;
  c.rows += step.padding_tokens;
  c.preemptions += static_cast<int64_t>(step.preempted.size());
  for (const ChunkRecord& chunk : step.chunks) {
    c.rows += chunk.length;
    requests_.insert(chunk.request);
    if (chunk.start > 0 && b > 0 && !chunk.prefilled) {
      // A hit reads blocks written before this step: the writers as they were when it began.
      const auto logical = static_cast<size_t>((chunk.start - 1) / b);
      if (logical < chunk.blocks.size()) {
        const auto w = writer_.find(chunk.blocks[logical]);
        if (w == writer_.end() || w->second != chunk.request) ++c.prefix_hits;
      }
    }
    c.drafts_rejected += chunk.length - chunk.accepted;
    c.negative_common_slots += static_cast<int64_t>(chunk.negative_common_slots.size());
    const int64_t end = chunk.start + chunk.accepted;
    c.groups_closed += end / cr - chunk.start / cr;
    c.ring_wraps += wraps_between(chunk.start, end, r);
  }
  for (const ChunkRecord& chunk : step.chunks) {
    if (chunk.length <= 0 || b <= 0) continue;
    for (int64_t l = chunk.prefilled ? 0 : chunk.start / b; l <= (chunk.start + chunk.length - 1) / b; ++l)
      if (l < static_cast<int64_t>(chunk.blocks.size())) writer_[chunk.blocks[static_cast<size_t>(l)]] = chunk.request;
  }
  c.requests = static_cast<int64_t>(requests_.size());
}

Coverage coverage_of(const Scenario& s) {
  CoverageCounter counter(s.config);
  for (const StepRecord& step : s.steps) counter.add(step);
  return counter.coverage();
}

}  // namespace qsa::traces
