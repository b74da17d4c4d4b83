#include "qsa/traces/edge_batch_generator.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "qsa/ring_capacity.hpp"

namespace qsa::traces {

const char* to_string(BatchShape shape) {
  switch (shape) {
    case BatchShape::kSingleToken:
      return "single-token";
    case BatchShape::kAllPadding:
      return "all-padding";
    case BatchShape::kUniformDecode:
      return "uniform-decode";
    case BatchShape::kMixed:
      return "mixed";
    case BatchShape::kZeroLengthInside:
      return "zero-length-inside";
    case BatchShape::kLongPrefill:
      return "long-prefill";
    case BatchShape::kTokenPadding:
      return "token-padding";
    case BatchShape::kRandom:
      return "random";
    case BatchShape::kZeroLengthFirst:
      return "zero-length-first";
    case BatchShape::kManyRequests:
      return "many-requests";
    case BatchShape::kInt32Limits:
      return "int32-limits";
  }
  return "unknown";
}

namespace {

constexpr int64_t kInt32Max = 2147483647;
constexpr int32_t kOutsideView = 777777;  // storage outside a strided view; ordinary entries stay below

struct RequestPlan {
  int64_t query_len;
  int64_t seq_len;
};

// Weights out of 64: the classes a kernel gets wrong most get the most draws, the large
// many-requests batches (thousands of rows) the fewest.
BatchShape draw_shape(Choice& c) {
  static const std::pair<int64_t, BatchShape> weights[] = {
      {5, BatchShape::kSingleToken},      {4, BatchShape::kAllPadding},   {7, BatchShape::kUniformDecode},
      {8, BatchShape::kMixed},            {6, BatchShape::kZeroLengthInside}, {4, BatchShape::kLongPrefill},
      {5, BatchShape::kTokenPadding},     {10, BatchShape::kRandom},      {6, BatchShape::kZeroLengthFirst},
      {1, BatchShape::kManyRequests},     {8, BatchShape::kInt32Limits}};
  int64_t draw = c.range(0, 63);
  for (const auto& [weight, shape] : weights) {
    if (draw < weight) return shape;
    draw -= weight;
  }
  return BatchShape::kRandom;
}

CacheKindConfig draw_cache(Choice& c, CacheKind kind, int64_t drafts, BatchShape shape) {
  CacheKindConfig cache;
  cache.kind = kind;
  switch (kind) {
    case CacheKind::kCompressed:
      if (shape == BatchShape::kInt32Limits) {  // few groups per block table column: large C and S
        cache.compress_ratio = c.pick({3, 4, 1024, 1000});
        cache.storage_block_size = c.pick({200, 404, 1 << 20, (1 << 20) - 1});
      } else {
        // Powers of two and not (a kernel that shifts instead of dividing), near the bounds of SPEC 1.3.
        cache.compress_ratio = c.chance(3, 4) ? c.pick({2, 3, 4, 4, 5, 6, 8, 12, 16}) : c.edge_range(2, 1024);
        cache.storage_block_size = c.chance(3, 4) ? c.pick({1, 2, 3, 4, 16, 200, 404}) : c.edge_range(1, 512);
      }
      break;
    case CacheKind::kRing: {
      const int64_t ratio = c.pick({1, 2, 3, 4, 8});
      cache.ring_capacity = c.chance(2, 3) ? seed_ring_capacity(ratio, drafts) : c.edge_range(1, 40);
      if (c.chance(1, 3)) cache.compress_ratio = c.chance(1, 2) ? 1 : c.edge_range(1, 1024);
      break;
    }
    case CacheKind::kPassthrough:
      if (c.chance(1, 2)) cache.compress_ratio = 1;
      break;
  }
  return cache;
}

// A chunk start s_j: 0, a block boundary (a prefix hit), anywhere, or with e_j at the int32 limit.
int64_t chunk_start(Choice& c, int64_t length, int64_t max_start, bool near_limit) {
  switch (c.range(0, near_limit ? 4 : 3)) {
    case 0:
      return 0;
    case 1:
      return 16 * c.range(0, max_start / 16);
    case 4:
      return kInt32Max - length - c.range(0, 3);
    default:
      return c.edge_range(0, max_start);
  }
}

std::vector<RequestPlan> plan_requests(Choice& c, BatchShape shape, int64_t drafts, int64_t max_tokens) {
  std::vector<RequestPlan> plan;
  const bool near_limit = shape == BatchShape::kInt32Limits;
  auto add = [&](int64_t q, int64_t max_start) {
    const int64_t start = chunk_start(c, q, max_start, near_limit);
    plan.push_back({q, start + q});
  };
  auto zero_length = [&] { plan.push_back({0, c.chance(1, 2) ? 0 : c.edge_range(0, 300)}); };
  auto padded_requests = [&] {
    if (c.chance(1, 2))
      for (int64_t i = c.edge_range(1, 6); i > 0; --i) plan.push_back({0, 0});
  };
  const int64_t q_decode = 1 + drafts;
  switch (shape) {
    case BatchShape::kSingleToken:
      add(1, 5000);
      break;
    case BatchShape::kAllPadding:
      for (int64_t i = c.edge_range(1, 8); i > 0; --i) plan.push_back({0, 0});
      break;
    case BatchShape::kUniformDecode:
      for (int64_t i = c.edge_range(1, std::max<int64_t>(1, std::min<int64_t>(256, max_tokens / q_decode))); i > 0; --i)
        add(q_decode, 3000);
      padded_requests();
      break;
    case BatchShape::kMixed: {
      int64_t budget = max_tokens;
      for (int64_t i = c.range(0, 32); i > 0 && budget >= q_decode; --i, budget -= q_decode) add(q_decode, 3000);
      for (int64_t i = c.edge_range(1, 6); i > 0 && budget > 0; --i) {
        const int64_t len = c.edge_range(1, std::min<int64_t>(budget, 700));
        budget -= len;
        add(len, 2000);
      }
      padded_requests();
      break;
    }
    case BatchShape::kZeroLengthInside:
      for (int64_t i = c.edge_range(2, 12); i > 0; --i) {
        if (c.chance(1, 3))
          zero_length();
        else
          add(c.edge_range(1, 40), 500);
      }
      break;
    case BatchShape::kZeroLengthFirst:
      for (int64_t i = c.edge_range(1, 3); i > 0; --i) zero_length();
      for (int64_t i = c.edge_range(1, 8); i > 0; --i) add(c.chance(1, 2) ? q_decode : c.edge_range(1, 60), 500);
      padded_requests();
      break;
    case BatchShape::kLongPrefill:
      for (int64_t i = c.edge_range(1, 3); i > 0; --i) add(c.edge_range(1, std::max<int64_t>(1, max_tokens / 3)), 8000);
      break;
    case BatchShape::kTokenPadding:
      for (int64_t i = c.edge_range(1, 4); i > 0; --i) add(c.edge_range(1, 5), 100);
      break;
    case BatchShape::kManyRequests: {
      // Past 1024 requests (the serving default, where a kernel's fixed capacity ends); requests
      // beyond the token budget are padded requests, so NR stays large at any budget.
      int64_t budget = max_tokens;
      for (int64_t i = c.edge_range(1024, 2048); i > 0; --i) {
        const int64_t q = c.chance(1, 16) ? 0 : std::min(q_decode, budget);
        budget -= q;
        if (q == 0)
          plan.push_back({0, 0});
        else
          add(q, 3000);
      }
      break;
    }
    case BatchShape::kInt32Limits:
      for (int64_t i = c.edge_range(1, 4); i > 0; --i) add(c.chance(1, 2) ? q_decode : c.edge_range(1, 64), 1 << 20);
      break;
    case BatchShape::kRandom:
      for (int64_t i = c.edge_range(1, 20); i > 0; --i) {
        if (c.chance(1, 5))
          zero_length();
        else
          add(c.edge_range(1, 120), 1500);
      }
      padded_requests();
      break;
  }
  return plan;
}

// Columns the request needs so that every slot it could write has a block-table entry.
int64_t needed_columns(const CacheKindConfig& cache, int64_t max_seq_len) {
  if (cache.kind == CacheKind::kCompressed) return max_seq_len / *cache.compress_ratio / cache.storage_block_size + 1;
  return 1;
}

BlockTable draw_block_table(Choice& c, int64_t rows, int64_t needed_cols, int64_t max_cols, bool near_limit) {
  int64_t cols = needed_cols;
  if (c.chance(1, 5))
    cols = c.edge_range(0, std::min(needed_cols, max_cols));  // missing columns (W = 0 included)
  else if (c.chance(1, 5))
    cols += c.edge_range(1, 3);
  cols = std::min(cols, max_cols);
  const int64_t extra_rows = c.chance(1, 4) ? c.edge_range(1, 3) : 0;  // tables are sized for max_num_seqs
  const int64_t negative_percent = c.pick({0, 0, 15, 100});
  const int64_t high_percent = near_limit ? c.pick({50, 100}) : 0;  // ids at INT32_MAX - 0 ... 3
  // Thousands of entries: from one seed, not one decision each.
  Rng bulk(c.seed());
  std::vector<std::vector<int32_t>> dense(static_cast<size_t>(rows + extra_rows),
                                          std::vector<int32_t>(static_cast<size_t>(cols)));
  for (auto& row : dense)
    for (auto& entry : row) {
      if (bulk.chance(static_cast<uint64_t>(negative_percent), 100))
        entry = bulk.chance(3, 4) ? -1 : static_cast<int32_t>(bulk.chance(1, 2) ? -2 : INT32_MIN);  // any negative: none
      else if (bulk.chance(static_cast<uint64_t>(high_percent), 100))
        entry = static_cast<int32_t>(kInt32Max - bulk.range(0, 3));
      else
        entry = static_cast<int32_t>(bulk.range(0, 100000));
    }
  switch (c.range(0, 3)) {
    case 0:
      return BlockTable::from_rows(dense);
    case 1:
      return BlockTable::column_major(dense);
    default: {
      // A view into a wider table: a column slice (row stride > W, an offset before column 0 is
      // not needed) or every other column (column stride 2); the rest of storage holds a marker.
      const bool slice = c.chance(1, 2);
      BlockTable t;
      t.rows = static_cast<int64_t>(dense.size());
      t.cols = cols;
      t.col_stride = slice ? 1 : 2;
      t.row_stride = (slice ? cols : 2 * cols) + c.edge_range(1, 3);
      t.storage.assign(static_cast<size_t>(t.rows * t.row_stride + 3), kOutsideView);
      for (int64_t r = 0; r < t.rows; ++r)
        for (int64_t col = 0; col < cols; ++col)
          t.storage[static_cast<size_t>(r * t.row_stride + col * t.col_stride)] = dense[r][col];
      return t;
    }
  }
}

}  // namespace

GeneratedBatch edge_metadata_batch(Choice& c, const EdgeBatchOptions& options) {
  const BatchShape shape = draw_shape(c);
  const CacheKind kind = options.kind ? *options.kind : static_cast<CacheKind>(c.range(0, 2));
  const int64_t drafts = c.edge_range(0, 4);
  const int64_t max_tokens = std::max<int64_t>(options.max_tokens, 1);

  GeneratedBatch out{{}, shape};
  MetadataInput& in = out.input;
  in.cache = draw_cache(c, kind, drafts, shape);
  in.batch.reorder_batch_threshold = c.pick({1, 1 + drafts, 1 + drafts, c.edge_range(1, 16)});

  const std::vector<RequestPlan> plan = plan_requests(c, shape, drafts, max_tokens);
  in.batch.query_start_loc.push_back(0);
  int64_t max_seq = 0;
  for (const RequestPlan& r : plan) {
    in.batch.query_start_loc.push_back(in.batch.query_start_loc.back() + r.query_len);
    in.batch.seq_lens.push_back(r.seq_len);
    max_seq = std::max(max_seq, r.seq_len);
  }
  const int64_t m = in.batch.query_start_loc.back();
  int64_t padding = 0;
  if (shape == BatchShape::kTokenPadding)
    padding = c.edge_range(m + 1, 4 * m + 300);  // N much larger than M
  else if (shape == BatchShape::kAllPadding || c.chance(1, 4))
    padding = c.edge_range(0, 40);
  in.batch.num_actual_tokens = m + padding;

  // Common slots: some real rows negative; near the int32 limit on the int32 shape.
  const int64_t negative_percent = c.pick({0, 5, 30});
  const int64_t slot_hi = shape == BatchShape::kInt32Limits ? kInt32Max : int64_t{1} << 30;
  Rng bulk(c.seed());
  RngChoice slots(bulk);
  for (int64_t t = 0; t < in.batch.num_actual_tokens; ++t) {
    const bool negative = t >= m || bulk.chance(static_cast<uint64_t>(negative_percent), 100);
    in.batch.common_slot_mapping.push_back(negative ? -slots.edge_range(1, 9) : slots.edge_range(0, slot_hi));
  }
  if (c.chance(1, 6))  // the mapping may be longer than N (SPEC 1.1: [>= N]); entries past N are never read
    for (int64_t extra = c.edge_range(1, 3); extra > 0; --extra) in.batch.common_slot_mapping.push_back(c.range(-1, 5));
  // Thousands of requests get a narrow table (missing columns are legal), so the batch stays cheap.
  const int64_t max_cols = std::min<int64_t>(std::max<int64_t>(options.max_table_cols, 0),
                                             shape == BatchShape::kManyRequests ? 64 : int64_t{1} << 20);
  in.block_table = draw_block_table(c, in.batch.num_requests(), needed_columns(in.cache, max_seq), max_cols,
                                    shape == BatchShape::kInt32Limits);
  if (kind == CacheKind::kCompressed && c.chance(1, 3))
    in.cache.request_capacity = in.batch.num_requests() + c.edge_range(0, 10);
  return out;
}

}  // namespace qsa::traces
