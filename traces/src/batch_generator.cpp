#include "qsa/traces/batch_generator.hpp"

#include "qsa/ring_capacity.hpp"

#include <algorithm>
#include <vector>

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
  }
  return "unknown";
}

namespace {

struct RequestPlan {
  int64_t query_len;
  int64_t seq_len;
};

int64_t pick(Rng& rng, std::initializer_list<int64_t> values) { return *(values.begin() + rng.below(values.size())); }

CacheKindConfig random_cache(Rng& rng, CacheKind kind, int64_t drafts) {
  CacheKindConfig cache;
  cache.kind = kind;
  switch (kind) {
    case CacheKind::kCompressed:
      cache.compress_ratio = rng.chance(3, 4) ? pick(rng, {2, 4, 4, 8, 16}) : rng.range(2, 40);
      cache.storage_block_size = rng.chance(3, 4) ? pick(rng, {1, 2, 4, 16, 200}) : rng.range(1, 64);
      break;
    case CacheKind::kRing: {
      const int64_t c = pick(rng, {1, 2, 4, 8});
      cache.ring_capacity = rng.chance(2, 3) ? seed_ring_capacity(c, drafts) : rng.range(1, 40);
      if (rng.chance(1, 3)) cache.compress_ratio = rng.chance(1, 2) ? 1 : pick(rng, {2, 4, 8});
      break;
    }
    case CacheKind::kPassthrough:
      if (rng.chance(1, 2)) cache.compress_ratio = 1;
      break;
  }
  return cache;
}

// Chunk start s_j: from position 0, at a block boundary (a prefix hit), or anywhere.
int64_t random_start(Rng& rng, int64_t max_start) {
  switch (rng.below(4)) {
    case 0:
      return 0;
    case 1:
      return 16 * rng.range(0, max_start / 16);
    default:
      return rng.range(0, max_start);
  }
}

std::vector<RequestPlan> plan_requests(Rng& rng, BatchShape shape, int64_t drafts, int64_t max_tokens) {
  std::vector<RequestPlan> plan;
  auto add = [&](int64_t q, int64_t start) { plan.push_back({q, start + q}); };
  auto add_padding_requests = [&] {
    const int64_t pads = rng.chance(1, 2) ? 0 : rng.range(1, 6);
    for (int64_t i = 0; i < pads; ++i) plan.push_back({0, 0});
  };
  switch (shape) {
    case BatchShape::kSingleToken:
      add(1, random_start(rng, 5000));
      break;
    case BatchShape::kAllPadding:
      for (int64_t i = rng.range(1, 8); i > 0; --i) plan.push_back({0, 0});
      break;
    case BatchShape::kUniformDecode: {
      const int64_t q = 1 + drafts;
      for (int64_t i = rng.range(1, std::max<int64_t>(1, std::min<int64_t>(256, max_tokens / q))); i > 0; --i)
        add(q, random_start(rng, 3000));
      add_padding_requests();
      break;
    }
    case BatchShape::kMixed: {
      const int64_t q = 1 + drafts;
      int64_t budget = max_tokens;
      for (int64_t i = rng.range(0, 32); i > 0 && budget >= q; --i, budget -= q) add(q, random_start(rng, 3000));
      for (int64_t i = rng.range(1, 6); i > 0 && budget > 0; --i) {
        const int64_t len = rng.range(1, std::min<int64_t>(budget, 700));
        budget -= len;
        add(len, random_start(rng, 2000));
      }
      add_padding_requests();
      break;
    }
    case BatchShape::kZeroLengthInside:
      for (int64_t i = rng.range(2, 10); i > 0; --i) {
        if (rng.chance(1, 3))
          plan.push_back({0, rng.range(0, 300)});  // zero-length with context
        else
          add(rng.range(1, 40), random_start(rng, 500));
      }
      break;
    case BatchShape::kLongPrefill:
      for (int64_t i = rng.range(1, 3); i > 0; --i)
        add(rng.range(1, std::max<int64_t>(1, max_tokens / 3)), random_start(rng, 8000));
      break;
    case BatchShape::kTokenPadding:
      for (int64_t i = rng.range(1, 4); i > 0; --i) add(rng.range(1, 5), random_start(rng, 100));
      break;
    case BatchShape::kRandom:
      for (int64_t i = rng.range(1, 20); i > 0; --i)
        add(rng.chance(1, 5) ? 0 : rng.range(1, 120), random_start(rng, 1500));
      add_padding_requests();
      break;
  }
  return plan;
}

// Columns the request needs so that every slot it could write has a block-table entry.
int64_t needed_columns(const CacheKindConfig& cache, int64_t max_seq_len) {
  if (cache.kind == CacheKind::kCompressed) {
    const int64_t groups = max_seq_len / *cache.compress_ratio;
    return groups / cache.storage_block_size + 1;
  }
  return 1;
}

BlockTable random_block_table(Rng& rng, int64_t rows, int64_t needed_cols) {
  int64_t cols = needed_cols;
  if (rng.chance(1, 5))
    cols = rng.range(0, needed_cols);  // missing columns
  else if (rng.chance(1, 5))
    cols += rng.range(1, 3);
  cols = std::min<int64_t>(cols, 4096);
  const int64_t extra_rows = rng.chance(1, 4) ? rng.range(1, 3) : 0;  // tables are sized for max_num_seqs
  std::vector<std::vector<int32_t>> dense(static_cast<size_t>(rows + extra_rows),
                                          std::vector<int32_t>(static_cast<size_t>(cols)));
  const bool with_negatives = rng.chance(1, 3);
  for (auto& row : dense)
    for (auto& entry : row) entry = with_negatives && rng.chance(1, 6) ? -1 : static_cast<int32_t>(rng.range(0, 5000));
  switch (rng.below(4)) {
    case 0:
      return BlockTable::column_major(dense);
    case 1: {  // a column slice of a wider table: row stride > cols, first column at an offset
      BlockTable wide = BlockTable::from_rows(dense);
      const int64_t pad = rng.range(1, 3);
      BlockTable table;
      table.rows = wide.rows;
      table.cols = wide.cols;
      table.row_stride = wide.cols + pad;
      table.col_stride = 1;
      table.storage.assign(static_cast<size_t>(table.rows * table.row_stride + pad), -7);
      for (int64_t r = 0; r < table.rows; ++r)
        for (int64_t c = 0; c < table.cols; ++c)
          table.storage[static_cast<size_t>(r * table.row_stride + c)] = dense[r][c];
      return table;
    }
    default:
      return BlockTable::from_rows(dense);
  }
}

}  // namespace

GeneratedBatch random_metadata_input(Rng& rng, std::optional<CacheKind> kind, int64_t max_tokens) {
  const auto shape = static_cast<BatchShape>(rng.below(kNumBatchShapes));
  const CacheKind k = kind ? *kind : static_cast<CacheKind>(rng.below(3));
  const int64_t drafts = rng.range(0, 4);
  max_tokens = std::max<int64_t>(max_tokens, 1);

  GeneratedBatch out{{}, shape};
  MetadataInput& in = out.input;
  in.cache = random_cache(rng, k, drafts);
  in.batch.reorder_batch_threshold = rng.chance(1, 2) ? 1 : 1 + drafts;

  std::vector<RequestPlan> plan = plan_requests(rng, shape, drafts, max_tokens);
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
    padding = rng.range(1, 300);
  else if (shape == BatchShape::kAllPadding || rng.chance(1, 4))
    padding = rng.range(0, 40);
  in.batch.num_actual_tokens = m + padding;

  for (int64_t t = 0; t < in.batch.num_actual_tokens; ++t) {
    const bool real = t < m;
    const bool negative = !real || rng.chance(1, 12);  // some real rows carry a negative common slot
    in.batch.common_slot_mapping.push_back(negative ? (rng.chance(1, 2) ? -1 : -rng.range(2, 9))
                                                    : rng.range(0, 1 << 20));
  }
  in.block_table = random_block_table(rng, in.batch.num_requests(), needed_columns(in.cache, max_seq));
  if (in.cache.kind == CacheKind::kCompressed && rng.chance(1, 3))
    in.cache.request_capacity = in.batch.num_requests() + rng.range(0, 10);
  return out;
}

}  // namespace qsa::traces
