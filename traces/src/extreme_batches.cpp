#include "qsa/traces/extreme_batches.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace qsa::traces {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

// Requests of (query length, seq_len); qsl is their running sum.
Batch batch_of(const std::vector<std::pair<int64_t, int64_t>>& requests, int64_t num_actual_tokens,
               int64_t threshold) {
  Batch b;
  b.query_start_loc.reserve(requests.size() + 1);
  b.seq_lens.reserve(requests.size());
  b.query_start_loc.push_back(0);
  for (const auto& [query_len, seq_len] : requests) {
    b.query_start_loc.push_back(b.query_start_loc.back() + query_len);
    b.seq_lens.push_back(seq_len);
  }
  b.num_actual_tokens = num_actual_tokens;
  b.reorder_batch_threshold = threshold;
  return b;
}

// Common slots: real rows t get t, padding rows -1; the first rows then take the int64 edges (the
// non-negative ones only where the row is real: a padding row's slot must be negative).
void fill_common_slots(Batch& b, int64_t extra_entries) {
  const int64_t n = b.num_actual_tokens, m = b.num_mapped_tokens();
  b.common_slot_mapping.reserve(static_cast<size_t>(n + extra_entries));
  for (int64_t t = 0; t < n; ++t) b.common_slot_mapping.push_back(t < m ? t : -1);
  const int64_t edges[] = {kInt64Max, kInt64Max - 1, kInt64Min, kInt64Min + 1, -2};
  for (int64_t i = 0; i < 5 && i < n; ++i)
    if (edges[i] < 0 || i < m) b.common_slot_mapping[static_cast<size_t>(i)] = edges[i];
  for (int64_t i = 0; i < extra_entries; ++i) b.common_slot_mapping.push_back(-1);  // [>= N]: past N, never read
}

// A dense table of `rows` rows as wide as `first_row`: row 0 holds `first_row`, every other entry `others`.
BlockTable table_of(int64_t rows, const std::vector<int32_t>& first_row, int32_t others) {
  BlockTable t;
  t.rows = rows;
  t.cols = static_cast<int64_t>(first_row.size());
  t.row_stride = t.cols;
  t.storage.assign(static_cast<size_t>(rows * t.cols), others);
  for (size_t c = 0; c < first_row.size(); ++c) t.storage[c] = first_row[c];
  return t;
}

// One compressed request of 2^24 rows ending at seq_len 2^31 - 1, then a zero-length one whose
// chunk starts at 2^31 - 1: N = M = q = 2^24, C = 1024, S = 2^20 (the closing groups fall in
// column 1, at block 2^31 - 1: slots near 2^51), T and request_capacity at their limits, common
// slots at the int64 edges, one entry past N.
ExtremeBatch tokens_one_request() {
  ExtremeBatch e{{}, "tokens-2^24-one-request"};
  e.input.batch = batch_of({{kMaxTokens, kMaxInt32}, {0, kMaxInt32}}, kMaxTokens, kMaxTokens);
  fill_common_slots(e.input.batch, 1);
  e.input.cache.kind = CacheKind::kCompressed;
  e.input.cache.compress_ratio = kMaxCompressRatio;
  e.input.cache.storage_block_size = kMaxStorageBlockSize;
  e.input.cache.request_capacity = kMaxRequests;
  e.input.block_table = table_of(2, {-kMaxInt32, static_cast<int32_t>(kMaxInt32)}, 0);
  return e;
}

// One ring request of 2^24 - 1 rows (N = M = q = 2^24 - 1, far longer than R = 2^20), its ring
// block 2^31 - 1, T = 2^24 - 1, builder ratio 1024. No common slots: the ring kind reads none
// (SPEC 1.4 checks the mapping's length for the other kinds only), and 128 MiB fewer.
ExtremeBatch tokens_minus_one_ring() {
  ExtremeBatch e{{}, "tokens-2^24-1-ring"};
  e.input.batch = batch_of({{kMaxTokens - 1, kMaxTokens + 4}}, kMaxTokens - 1, kMaxTokens - 1);
  e.input.cache.kind = CacheKind::kRing;
  e.input.cache.ring_capacity = kMaxRingCapacity;
  e.input.cache.compress_ratio = kMaxCompressRatio;
  e.input.block_table = table_of(1, {static_cast<int32_t>(kMaxInt32)}, 0);
  return e;
}

// 2^20 requests and 2^24 rows, all padding (ring, so no common slots): request 0 is zero-length
// with seq_len 2^31 - 1 (its chunk starts at 2^31 - 1), the rest padded requests (0, 0).
ExtremeBatch all_padding_max_requests() {
  ExtremeBatch e{{}, "padding-2^24-requests-2^20"};
  std::vector<std::pair<int64_t, int64_t>> requests(static_cast<size_t>(kMaxRequests), {0, 0});
  requests[0].second = kMaxInt32;
  e.input.batch = batch_of(requests, kMaxTokens, 1);
  e.input.cache.kind = CacheKind::kRing;
  e.input.cache.ring_capacity = 1;
  e.input.block_table = table_of(kMaxRequests, {kInt32Min}, -1);
  return e;
}

// One row, then 2^24 - 1 padding rows; 2^20 - 1 requests (a zero-length one with seq_len
// 2^31 - 1, then padded requests), ring kind (no common slots), block ids -2^31 + 1.
ExtremeBatch one_row_then_padding() {
  ExtremeBatch e{{}, "padding-2^24-1-requests-2^20-1"};
  std::vector<std::pair<int64_t, int64_t>> requests(static_cast<size_t>(kMaxRequests - 1), {0, 0});
  requests[0] = {1, 2};
  requests[1].second = kMaxInt32;
  e.input.batch = batch_of(requests, kMaxTokens, 2);
  e.input.cache.kind = CacheKind::kRing;
  e.input.cache.ring_capacity = 4;
  e.input.block_table = table_of(kMaxRequests - 1, {0}, -kMaxInt32);
  return e;
}

// A small compressed batch with request_capacity 2^20 - 1 and T = 2^24 - 1 (edges a batch of any
// size has; the large batches above are ring batches, whose outputs are cheaper).
ExtremeBatch compressed_capacity_minus_one() {
  ExtremeBatch e{{}, "compressed-capacity-2^20-1"};
  e.input.batch = batch_of({{5, 7}, {0, 3}, {3, 3}}, 9, kMaxTokens - 1);
  fill_common_slots(e.input.batch, 0);
  e.input.cache.kind = CacheKind::kCompressed;
  e.input.cache.compress_ratio = 3;
  e.input.cache.storage_block_size = kMaxStorageBlockSize - 1;
  e.input.cache.request_capacity = kMaxRequests - 1;
  e.input.block_table = table_of(3, {static_cast<int32_t>(kMaxInt32), -kMaxInt32}, 5);
  return e;
}

// A small ring batch with R = 2^20 - 1 (the ring's other edge; a size no draw takes).
ExtremeBatch ring_capacity_minus_one() {
  ExtremeBatch e{{}, "ring-capacity-2^20-1"};
  e.input.batch = batch_of({{3, kMaxRingCapacity + 1}, {2, 2}}, 6, 1);
  fill_common_slots(e.input.batch, 0);
  e.input.cache.kind = CacheKind::kRing;
  e.input.cache.ring_capacity = kMaxRingCapacity - 1;
  e.input.block_table = table_of(2, {static_cast<int32_t>(kMaxInt32 - 1)}, 1);
  return e;
}

// A small passthrough batch whose real rows carry the int64 edges of the common slot: passthrough
// copies them whole (a slot past 2^31 - 1 must not wrap); a zero-length request between two with
// rows has its chunk start at 2^31 - 1.
ExtremeBatch passthrough_int64_slots() {
  ExtremeBatch e{{}, "passthrough-int64-slots"};
  e.input.batch = batch_of({{4, 9}, {0, kMaxInt32}, {2, 2}, {0, 0}}, 8, 4);
  fill_common_slots(e.input.batch, 0);
  e.input.batch.common_slot_mapping[5] = (int64_t{1} << 32) + 5;  // its low 32 bits alone look like a slot
  e.input.cache.kind = CacheKind::kPassthrough;
  e.input.block_table = table_of(4, {}, 0);
  return e;
}

}  // namespace

ExtremeBatch extreme_metadata_batch(int64_t index) {
  switch (index) {  // the small ones first: a bug they show costs no large batch
    case 0:
      return ring_capacity_minus_one();
    case 1:
      return passthrough_int64_slots();
    case 2:
      return compressed_capacity_minus_one();
    case 3:
      return tokens_one_request();
    case 4:
      return tokens_minus_one_ring();
    case 5:
      return all_padding_max_requests();
    case 6:
      return one_row_then_padding();
  }
  throw std::out_of_range("extreme_metadata_batch: no batch " + std::to_string(index));
}

}  // namespace qsa::traces
