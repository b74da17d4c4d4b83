#include "qsa/engine/input_space_coverage.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "qsa/traces/content.hpp"
#include "qsa/traces/interleaved_calls.hpp"
#include "qsa/traces/scenario.hpp"
#include "qsa/traces/scenario_caches.hpp"
#include "qsa/validate.hpp"

namespace qsa::engine {
namespace {

using I = InputClassId;

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

I offset(I first, int by) { return static_cast<I>(static_cast<int>(first) + by); }

}  // namespace

InputClassCount& InputClassCount::operator+=(const InputClassCount& other) {
  count += other.count;
  steps += other.steps;
  min = std::min(min, other.min);
  max = std::max(max, other.max);
  for (int e = 0; e < kNumEdges; ++e) edges[e] = edges[e] || other.edges[e];
  return *this;
}

bool InputClassCount::operator==(const InputClassCount& o) const {
  return count == o.count && steps == o.steps && min == o.min && max == o.max && edges == o.edges;
}

InputSpaceCoverage& InputSpaceCoverage::operator+=(const InputSpaceCoverage& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  return *this;
}

void InputSpaceCoverage::hit(InputClassId id, int64_t times) {
  at(id).count += times;
  if (in_step_) at(id).steps += times;
}

bool InputSpaceCoverage::reached(InputClassId id) const {
  const InputClassCount& c = at(id);
  if (input_class(id).scope == InputScope::kBoth) return c.steps > 0 && c.count > c.steps;
  return c.count > 0;
}

void InputSpaceCoverage::value(InputClassId id, int64_t v) { value(id, v, input_class(id).hi); }

void InputSpaceCoverage::value(InputClassId id, int64_t v, int64_t hi) {
  InputClassCount& c = at(id);
  const int64_t lo = input_class(id).lo;
  hit(id);
  c.min = std::min(c.min, v);
  c.max = std::max(c.max, v);
  // Written without lo + 1 and hi - 1, which overflow at the int64 limits.
  if (v == lo) c.edges[0] = true;
  if (v > lo && v - 1 == lo) c.edges[1] = true;
  if (v < hi && v + 1 == hi) c.edges[2] = true;
  if (v == hi) c.edges[3] = true;
}

// ---- the batch: sizes, padding, order, split (a step's batch too) ---------------------------

void InputSpaceCoverage::count_batch(const Batch& b) {
  const int64_t nr = b.num_requests();
  const int64_t n = b.num_actual_tokens;
  const int64_t m = b.num_mapped_tokens();
  const int64_t threshold = b.reorder_batch_threshold;
  value(I::kNumActualTokens, n);
  value(I::kNumRequests, nr);
  if (nr > 1024) hit(I::kMoreThan1024Requests);
  value(I::kNumMappedTokens, m);
  value(I::kPaddingRows, n - m);
  value(I::kReorderBatchThreshold, threshold);

  int64_t first_with_rows = -1, last_with_rows = -1, max_q = 0;
  bool seen_decode = false, seen_prefill = false, uniform = true;
  for (int64_t j = 0; j < nr; ++j) {
    const int64_t q = b.query_len(j);
    value(I::kQueryLen, q);
    value(I::kSeqLen, b.seq_lens[j]);
    value(I::kChunkStart, b.chunk_start(j));
    max_q = std::max(max_q, q);
    if (q != 0 && q != b.query_len(0)) uniform = false;
    if (q == 0) {
      if (b.seq_lens[j] > 0) hit(I::kZeroLengthRequestWithContext);
      continue;
    }
    if (first_with_rows < 0) first_with_rows = j;
    last_with_rows = j;
    if (q <= threshold) {
      if (seen_prefill) hit(I::kPrefillBeforeDecode);
      seen_decode = true;
    } else {
      if (seen_decode) hit(I::kDecodeBeforePrefill);
      seen_prefill = true;
    }
  }
  // Zero-length requests by where they sit: first, or between two requests with rows.
  if (first_with_rows > 0) hit(I::kZeroLengthRequestFirst);
  for (int64_t j = first_with_rows + 1; first_with_rows >= 0 && j < last_with_rows; ++j)
    if (b.query_len(j) == 0) hit(I::kZeroLengthRequestInside);
  const bool padded_tail = nr > 0 && b.query_len(nr - 1) == 0 && b.seq_lens[nr - 1] == 0;
  if (padded_tail) hit(I::kPaddedRequestsAtTail);
  if (n > m && !padded_tail) hit(I::kTokenOnlyPadding);
  if (m == 0 && n > 0) hit(I::kAllPadding);

  // The batch split's rule (SPEC 2), in its order.
  if (max_q <= threshold && threshold <= 1) {
    hit(I::kSplitAllDecodesThresholdOne);
  } else if (b.query_len(0) > threshold) {
    hit(I::kSplitFirstRequestPrefill);
  } else if (uniform) {
    hit(I::kSplitPaddedUniform);
    if (n != nr * b.query_len(0)) hit(I::kSplitUniformNotNTimesQ0);
  } else {
    hit(I::kSplitDecodesThenPrefills);
  }

  const auto& slots = b.common_slot_mapping;
  const int64_t counted = std::min<int64_t>(n, static_cast<int64_t>(slots.size()));
  for (int64_t t = 0; t < counted; ++t) {
    const int64_t slot = slots[static_cast<size_t>(t)];
    if (slot >= 0) {
      value(I::kCommonSlot, slot);
    } else {
      value(I::kCommonSlotNegative, slot);
      if (t < m) hit(I::kNegativeCommonSlotOnRealRow);
    }
  }
  if (static_cast<int64_t>(slots.size()) > n) hit(I::kCommonSlotMappingLongerThanN);
}

// ---- cache kinds ----------------------------------------------------------------------------

void InputSpaceCoverage::count_compressed(const Batch& b, int64_t c, int64_t s, const BlockTable& table) {
  value(I::kCompressRatio, c);
  value(I::kStorageBlockSize, s);
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t q = b.query_len(j);
    if (q == 0) continue;
    const int64_t start = b.chunk_start(j), end = b.seq_lens[j];
    if (end / c == start / c) hit(I::kChunkWithoutClosingGroup);
    for (int64_t g = start / c; g < end / c; ++g) {  // the groups closing in this chunk
      const int64_t logical = g / s;
      if (logical >= table.cols)
        hit(I::kMissingCompressedColumn);
      else if (table.at(j, logical) < 0)
        hit(I::kMissingCompressedBlock);
      const int64_t row = b.query_start_loc[j] + (g * c + c - 1 - start);
      if (b.common_slot_mapping[static_cast<size_t>(row)] < 0) hit(I::kNegativeCommonSlotOnClosingRow);
    }
  }
}

void InputSpaceCoverage::count_ring(const Batch& b, int64_t r, const BlockTable& table) {
  value(I::kRingCapacity, r);
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t q = b.query_len(j);
    if (q == 0) continue;
    if (q > r) hit(I::kChunkLongerThanRing);
    if (table.cols == 0 || table.at(j, 0) < 0) hit(I::kMissingRingBlock);
  }
}

// Width, rows, strides and the entries of rows < NR, columns < `columns`.
void InputSpaceCoverage::count_table(const Batch& b, const BlockTable& table, int64_t columns) {
  value(I::kBlockTableWidth, table.cols);
  if (table.rows > b.num_requests()) hit(I::kBlockTableRowsBeyondRequests);
  if (table.rows > 1 && table.cols > 1 && table.row_stride == 1) hit(I::kBlockTableColumnMajor);
  if (table.col_stride == 1 && table.row_stride > table.cols) hit(I::kBlockTableColumnSlice);
  for (int64_t j = 0; j < b.num_requests(); ++j)
    for (int64_t col = 0; col < columns; ++col) {
      const int64_t id = table.at(j, col);
      value(id >= 0 ? I::kBlockId : I::kBlockIdNegative, id);
    }
}

void InputSpaceCoverage::count_cache_blocks(const Batch& b, const BlockTable& table, int64_t columns,
                                            const CacheLayout& layout, InputClassId in_cache, InputClassId past_cache) {
  for (int64_t j = 0; j < b.num_requests(); ++j)
    for (int64_t col = 0; col < columns; ++col) {
      const int64_t id = table.at(j, col);
      if (id < 0) continue;
      if (id < layout.num_blocks)
        value(in_cache, id, layout.num_blocks - 1);
      else
        hit(past_cache);
    }
}

// ---- metadata batches -----------------------------------------------------------------------

void InputSpaceCoverage::count_invalid(const Error& e) {
  // "malformed" strides: the table type's own rule, not SPEC 1.4's, and no row counts it.
  const Rule rule = rule_of(e);
  if (rule != Rule::kCount && rule_info(rule).breakable) hit(invalid_rule_class(rule));
}

void InputSpaceCoverage::add_batch(const MetadataInput& input) {
  Error error;
  if (validate(input, &error) != Status::kOk) {
    count_invalid(error);
    return;
  }
  const Batch& b = input.batch;
  const CacheKindConfig& cache = input.cache;
  count_batch(b);
  int64_t columns = input.block_table.cols;
  switch (cache.kind) {
    case CacheKind::kCompressed:
      hit(I::kKindCompressed);
      if (!is_power_of_two(*cache.compress_ratio)) hit(I::kCompressRatioNonPowerOfTwoBatch);
      if (cache.request_capacity)
        value(I::kRequestCapacity, *cache.request_capacity);
      else
        hit(I::kRequestCapacityOmitted);
      count_compressed(b, *cache.compress_ratio, cache.storage_block_size, input.block_table);
      break;
    case CacheKind::kRing:
      hit(I::kKindRing);
      if (cache.compress_ratio)
        value(I::kRingBuilderRatio, *cache.compress_ratio);
      else
        hit(I::kRingBuilderRatioOmitted);
      count_ring(b, cache.ring_capacity, input.block_table);
      columns = std::min<int64_t>(columns, 1);  // the ring reads column 0 only
      break;
    case CacheKind::kPassthrough:
      hit(I::kKindPassthrough);
      hit(cache.compress_ratio ? I::kPassthroughRatioOne : I::kPassthroughRatioOmitted);
      break;
  }
  count_table(b, input.block_table, columns);
}

// ---- step inputs ----------------------------------------------------------------------------

void InputSpaceCoverage::count_step_parameters(const StepConfig& c) {
  value(I::kHeadDim, c.head_dim);
  value(I::kRotaryDim, c.rotary_dim);
  hit(c.rotary_dim < c.head_dim ? I::kRotaryDimPartial : I::kRotaryDimFull);
  value(I::kNumHeads, c.num_heads);
  if (c.eps < FLT_MIN)
    hit(I::kEpsSubnormal);
  else if (c.eps < 1.0f)
    hit(I::kEpsNormalBelowOne);
  else
    hit(I::kEpsAtLeastOne);
  if (c.eps == FLT_MAX) hit(I::kEpsMaxFinite);
  if (!c.mrope_sections) {
    hit(I::kMropeOff);
  } else {
    hit(I::kMropeOn);
    const auto& s = *c.mrope_sections;
    traces::ScenarioConfig model;  // the real model's proportions for this rd
    model.mrope = true;
    model.rotary_dim = c.rotary_dim;
    hit(model.mrope_sections() == c.mrope_sections ? I::kMropeSectionsModelProportions : I::kMropeSectionsOtherSplit);
    if (s[0] == 0 || s[1] == 0 || s[2] == 0) hit(I::kMropeSectionZero);
    const int64_t hp = c.rotary_dim / 2;
    if (3 * s[1] > hp || 3 * s[2] > hp) hit(I::kMropeSectionBeyondInterleave);
  }
  hit(c.store_dtype == StoreDtype::kBf16 ? I::kStoreBf16 : I::kStoreFp8E4m3);
  value(I::kMaxPosition, c.max_position);
  count_special_values(c.w_k, I::kWeightNan);
  count_special_values(c.w_q, I::kWeightNan);
}

void InputSpaceCoverage::count_positions(const StepInput& in) {
  const int64_t hi = in.config.max_position - 1;
  for (int64_t p : in.positions) value(I::kPosition, p, hi);
  if (in.position_axes != 3) return;
  const int64_t n = in.num_tokens();
  const int64_t* t = in.positions.data();
  for (int64_t row = 0; row < n; ++row)
    if (t[row] != t[n + row] || t[row] != t[2 * n + row]) {
      hit(I::kPositionAxesDiffer);
      return;  // once per step: the class is the step's
    }
}

// bf16 patterns by class, in the order of the rows from `nan`: NaN, +inf, -inf, subnormal, -0.
// A branch-free test per chunk of 64 elements first (the compiler vectorizes it): special values
// are rare (+0, common in the keys' origin digits, passes the test), and this scan runs over
// every key and query element of a campaign.
void InputSpaceCoverage::count_special_values(const std::vector<Bf16>& values, InputClassId nan) {
  constexpr size_t kChunk = 64;
  int64_t found[5] = {0, 0, 0, 0, 0};
  const Bf16* data = values.data();
  for (size_t begin = 0; begin < values.size(); begin += kChunk) {
    const size_t end = std::min(values.size(), begin + kChunk);
    if (end - begin == kChunk) {  // a fixed trip count, so the test vectorizes at -O2
      uint16_t any = 0;           // an exponent of all zeros or all ones ((e + 1) mod 256 <= 1), but not +0
      for (size_t i = 0; i < kChunk; ++i) {
        const unsigned v = data[begin + i];
        any |= static_cast<uint16_t>(((((v & 0x7F80u) + 0x80u) & 0x7F80u) <= 0x80u) & (v != 0));
      }
      if (any == 0) continue;
    }
    for (size_t i = begin; i < end; ++i) {
      const Bf16 v = values[i];
      const unsigned exponent = (v >> 7) & 0xFFu;
      if (exponent != 0 && exponent != 0xFFu) continue;
      const bool mantissa = (v & 0x7Fu) != 0, negative = (v & 0x8000u) != 0;
      if (exponent == 0xFFu)
        ++found[mantissa ? 0 : negative ? 2 : 1];
      else if (mantissa)
        ++found[3];
      else if (negative)
        ++found[4];
    }
  }
  for (int k = 0; k < 5; ++k) hit(offset(nan, k), found[k]);
}

void InputSpaceCoverage::add_prefix_hits(const traces::PrefixHitCounts& h) {
  in_step_ = true;
  if (h.on_finished > 0) hit(I::kPrefixHitOnFinishedRequest, h.on_finished);
  if (h.deeper_than_one > 0) hit(I::kPrefixHitDeeperThanOneBlock, h.deeper_than_one);
  if (h.after_eviction > 0) hit(I::kPrefixHitAfterBlockReuse, h.after_eviction);
  if (h.shared_by_live > 0) hit(I::kPrefixHitSharedByLiveRequests, h.shared_by_live);
  in_step_ = false;
}

void InputSpaceCoverage::add_alternative_rows(const traces::AlternativeRowCounts& rows) {
  using A = NumericAlternative;
  static const std::pair<A, I> kRows[] = {{A::kPoolReciprocalMultiply, I::kAlternativePoolReciprocalMultiply},
                                          {A::kPoolPairwiseTree, I::kAlternativePoolPairwiseTree},
                                          {A::kPoolReverseOrder, I::kAlternativePoolReverseOrder},
                                          {A::kRsqrtSingleRounding, I::kAlternativeRsqrtSingleRounding},
                                          {A::kSumOfSquaresHalvingTree, I::kAlternativeSumOfSquaresHalvingTree},
                                          {A::kSumOfSquaresFma, I::kAlternativeSumOfSquaresFma},
                                          {A::kNormDividesByRms, I::kAlternativeNormDividesByRms},
                                          {A::kNormScaleReassociated, I::kAlternativeNormScaleReassociated},
                                          {A::kRopeFma, I::kAlternativeRopeFma}};
  in_step_ = true;
  for (const auto& [alternative, row] : kRows)
    if (const int64_t n = rows[static_cast<size_t>(alternative)]; n > 0) hit(row, n);
}

void InputSpaceCoverage::add_call_before_step(const traces::ScenarioConfig& config, int64_t index) {
  in_step_ = true;
  switch (traces::call_before_step(config, index)) {
    case traces::CallBeforeStep::kRejected:
      hit(I::kCallRejectedBeforeStep);
      break;
    case traces::CallBeforeStep::kStepStatus:
      hit(I::kCallStepStatusBeforeStep);
      break;
    case traces::CallBeforeStep::kOtherConfiguration:
      hit(I::kCallOtherConfigurationBeforeStep);
      break;
    case traces::CallBeforeStep::kNone:
      break;
  }
  in_step_ = false;
}

void InputSpaceCoverage::add_declined_call() {
  in_step_ = true;
  hit(I::kCallDeclinedBeforeStep);
  in_step_ = false;
}

void InputSpaceCoverage::add_scenario_on_instance(const traces::ScenarioConfig* previous,
                                                  const traces::ScenarioConfig& now) {
  if (previous == nullptr) return;
  const StepGeometry a = traces::step_geometry(*previous), b = traces::step_geometry(now);
  const auto key = [](const StepGeometry& g) {
    return std::make_tuple(g.head_dim, g.rotary_dim, g.num_heads, g.compress_ratio, g.storage_block_size,
                           g.ring_capacity, g.store_dtype, g.mrope, g.ring_positions, g.strided_block_tables,
                           g.padded_caches);
  };
  if (key(a) == key(b)) return;
  in_step_ = true;
  hit(I::kInstanceServesAnotherGeometry);
  in_step_ = false;
}

// The row-role classes (input_space.cpp's role_domain_note says what each counts).
void InputSpaceCoverage::count_roles(const StepInput& in, int64_t rejected_rows) {
  using R = RowRole;
  static const I kZeroQsl = role_domain_class("query_start_loc", R::kZeroLengthRequest);
  static const I kZeroSeq = role_domain_class("seq_lens", R::kZeroLengthRequest);
  static const I kPaddingSlot = role_domain_class("common_slot_mapping", R::kPadding);
  static const I kPaddingKey = role_domain_class("keys", R::kPadding);
  static const I kPaddingQuery = role_domain_class("queries", R::kPadding);
  static const I kPaddingPosition = role_domain_class("positions", R::kPadding);
  const Batch& b = in.batch;
  const int64_t nr = b.num_requests();
  const int64_t m = b.num_mapped_tokens();
  const int64_t n = b.num_actual_tokens;
  if (rejected_rows > 0)
    for (const char* field : {"common_slot_mapping", "keys", "queries", "positions"})
      hit(role_domain_class(field, R::kRejectedDraft));
  bool zero_length = false;
  for (int64_t j = 0; j < nr; ++j) {
    if (b.query_len(j) != 0) continue;
    zero_length = true;
    if (b.seq_lens[j] > 0) hit(kZeroSeq);
  }
  if (zero_length) hit(kZeroQsl);
  const int64_t d = in.config.head_dim;
  const int64_t hd = in.config.num_heads * d;
  std::map<std::array<int64_t, 4>, int64_t> live_rows;  // a live row per key origin, built on demand
  for (int64_t t = m; t < n; ++t) {
    if (b.common_slot_mapping[static_cast<size_t>(t)] < -1) hit(kPaddingSlot);
    for (int64_t a = 0; a < in.position_axes; ++a)
      if (in.positions[static_cast<size_t>(a * n + t)] != 0) {
        hit(kPaddingPosition);
        break;
      }
    const auto origin = traces::decode_key_origin(in.keys.data() + t * d, d);
    if (!origin || origin->kind == traces::OriginKind::kPadding) continue;
    hit(kPaddingKey);
    if (live_rows.empty())
      for (int64_t u = 0; u < m; ++u)
        if (const auto o = traces::decode_key_origin(in.keys.data() + u * d, d))
          live_rows.emplace(std::array<int64_t, 4>{static_cast<int64_t>(o->kind), o->id, o->position, o->attempt}, u);
    const auto it = live_rows.find({static_cast<int64_t>(origin->kind), origin->id, origin->position, origin->attempt});
    if (it != live_rows.end() && std::equal(in.queries.begin() + t * hd, in.queries.begin() + (t + 1) * hd,
                                            in.queries.begin() + it->second * hd))
      hit(kPaddingQuery);
  }
  count_stale_table(b, in.block_table, "block_table");
  count_stale_table(b, in.ring_block_table, "ring_block_table");
}

// A table's entries on the roles past the live requests: a zero-length request's row, rows past
// NR, storage past the W used columns. Counted where they hold a block a live request holds.
void InputSpaceCoverage::count_stale_table(const Batch& b, const BlockTable& table, const char* field) {
  const int64_t nr = b.num_requests();
  std::vector<bool> addressed(table.storage.size(), false);
  std::set<int32_t> live;
  for (int64_t r = 0; r < table.rows; ++r)
    for (int64_t c = 0; c < table.cols; ++c) {
      const auto i = static_cast<size_t>(r * table.row_stride + c * table.col_stride);
      addressed[i] = true;
      if (r < nr && b.query_len(r) > 0 && table.storage[i] >= 0) live.insert(table.storage[i]);
    }
  if (live.empty()) return;
  for (int64_t r = 0; r < table.rows; ++r) {
    const bool zero_length = r < nr && b.query_len(r) == 0;
    if (!zero_length && r < nr) continue;
    for (int64_t c = 0; c < table.cols; ++c)
      if (live.count(table.at(r, c))) {
        hit(role_domain_class(field, zero_length ? RowRole::kZeroLengthRequest : RowRole::kRequestPastNr));
        break;
      }
  }
  for (size_t i = 0; i < table.storage.size(); ++i)
    if (!addressed[i] && live.count(table.storage[i])) {
      hit(role_domain_class(field, RowRole::kColumnPastW));
      break;
    }
}

void InputSpaceCoverage::add_step(const StepInput& in, const CacheLayout& compressed, const CacheLayout& ring,
                                  int64_t rejected_rows) {
  const StepConfig& c = in.config;
  const Batch& b = in.batch;
  in_step_ = true;
  count_batch(b);
  if (!is_power_of_two(c.compress_ratio)) hit(I::kCompressRatioNonPowerOfTwoStep);
  count_compressed(b, c.compress_ratio, c.storage_block_size, in.block_table);
  count_ring(b, c.ring_capacity, in.ring_block_table);
  count_table(b, in.block_table, in.block_table.cols);
  count_table(b, in.ring_block_table, std::min<int64_t>(in.ring_block_table.cols, 1));
  count_cache_blocks(b, in.block_table, in.block_table.cols, compressed, I::kCompressedBlockInCache,
                     I::kCompressedBlockPastCache);
  count_cache_blocks(b, in.ring_block_table, std::min<int64_t>(in.ring_block_table.cols, 1), ring, I::kRingBlockInCache,
                     I::kRingBlockPastCache);
  for (int64_t j = 0; j < b.num_requests(); ++j) {
    const int64_t start = b.chunk_start(j);
    if (b.query_len(j) > 0 && start % c.compress_ratio != 0 &&
        b.seq_lens[j] / c.compress_ratio > start / c.compress_ratio)
      hit(I::kGroupReachesBackIntoRing);
  }
  if (compressed.row_stride > compressed.width) hit(I::kCompressedCacheRowStridePadded);
  if (compressed.block_stride > compressed.rows * compressed.row_stride) hit(I::kCompressedCacheBlockStridePadded);
  if (ring.row_stride > ring.width) hit(I::kRingCacheRowStridePadded);
  if (ring.block_stride > ring.rows * ring.row_stride) hit(I::kRingCacheBlockStridePadded);
  count_step_parameters(c);
  count_positions(in);
  count_special_values(in.keys, I::kKeyNan);
  count_special_values(in.queries, I::kQueryNan);
  count_roles(in, rejected_rows);
  in_step_ = false;
}

// ---- what is missing ------------------------------------------------------------------------

std::vector<std::string> InputSpaceCoverage::missed_edges(InputClassId id) const {
  std::vector<std::string> missed;
  const InputClass& row = input_class(id);
  for (int e = 0; e < kNumEdges; ++e)
    if (edge_is_legal(row, e) && !at(id).edges[e]) missed.emplace_back(edge_name(e));
  return missed;
}

int InputSpaceCoverage::reached_rows() const {
  int reached_rows = 0;
  for (const InputClass& row : input_classes()) reached_rows += reached(row.which) ? 1 : 0;
  return reached_rows;
}

std::vector<std::string> InputSpaceCoverage::gaps() const {
  std::vector<std::string> lines;
  for (const InputClass& row : input_classes()) {
    const InputClassCount& c = at(row.which);
    if (reached(row.which) || row.needs_declared_limits) continue;
    const char* what = c.count == 0   ? "never reached"
                       : c.steps == 0 ? "no step input reached it"
                                      : "no metadata batch reached it";
    lines.push_back(std::string(row.id) + ": " + what + " (" + row.legal + ")");
  }
  for (const InputClass& row : input_classes()) {
    if (at(row.which).count == 0) continue;
    const std::vector<std::string> missed = missed_edges(row.which);
    if (missed.empty()) continue;
    std::string list;
    for (const std::string& e : missed) list += (list.empty() ? "" : ", ") + e;
    lines.push_back(std::string(row.id) + ": edges " + list + " not reached (range [" + std::to_string(row.lo) + ", " +
                    (row.hi_per_input ? std::string("per input") : std::to_string(row.hi)) + "], reached [" +
                    std::to_string(at(row.which).min) + ", " + std::to_string(at(row.which).max) + "])");
  }
  return lines;
}

bool InputSpaceCoverage::is_gap_key(const std::string& key) {
  for (const InputClass& row : input_classes()) {
    if (key == row.id) return true;
    for (int e = 0; e < kNumEdges; ++e)
      if (edge_is_legal(row, e) && key == std::string(row.id) + " " + edge_name(e)) return true;
  }
  return false;
}

std::vector<std::string> InputSpaceCoverage::gap_keys() const {
  std::vector<std::string> keys;
  for (const InputClass& row : input_classes())
    if (!reached(row.which) && !row.needs_declared_limits) keys.emplace_back(row.id);
  for (const InputClass& row : input_classes()) {
    if (at(row.which).count == 0) continue;
    for (const std::string& edge : missed_edges(row.which)) keys.push_back(std::string(row.id) + " " + edge);
  }
  return keys;
}

}  // namespace qsa::engine
