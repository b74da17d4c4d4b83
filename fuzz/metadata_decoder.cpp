#include "metadata_decoder.hpp"

#include "qsa/ring_capacity.hpp"

#include <algorithm>
#include <vector>

namespace qsa::fuzz {
namespace {

constexpr int64_t kInt32Max = 2147483647;

enum class Shape {
  kSingleToken,
  kAllPadding,
  kUniformDecode,
  kMixed,
  kZeroLengthInside,
  kLongPrefill,
  kTokenPadding,
  kRandom
};

struct Request {
  int64_t length;  // q_j
  int64_t start;   // s_j = e_j - q_j
};

// A chunk start: 0, a block boundary (a prefix hit), anywhere, or next to the int32 limit.
int64_t chunk_start(Decoder& in, int64_t length) {
  switch (in.range(0, 5)) {
    case 0:
      return 0;
    case 1:
      return 16 * in.range(0, 300);
    case 2:
      return kInt32Max - length - in.range(0, 3);  // e_j at or just below the int32 limit
    default:
      return in.range(0, 5000);
  }
}

std::vector<Request> plan_requests(Decoder& in, Shape shape, int64_t drafts) {
  std::vector<Request> plan;
  auto add = [&](int64_t q) { plan.push_back({q, chunk_start(in, q)}); };
  auto padded_requests = [&] {
    for (int64_t i = in.flag() ? 0 : in.range(1, 5); i > 0; --i) plan.push_back({0, 0});
  };
  switch (shape) {
    case Shape::kSingleToken:
      add(1);
      break;
    case Shape::kAllPadding:
      for (int64_t i = in.range(1, 8); i > 0; --i) plan.push_back({0, 0});
      break;
    case Shape::kUniformDecode:
      for (int64_t i = in.range(1, 24); i > 0; --i) add(1 + drafts);
      padded_requests();
      break;
    case Shape::kMixed:
      for (int64_t i = in.range(0, 12); i > 0; --i) add(1 + drafts);
      for (int64_t i = in.range(1, 5); i > 0; --i) add(in.edgy(1, 400, {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 64}));
      padded_requests();
      break;
    case Shape::kZeroLengthInside:
      for (int64_t i = in.range(2, 10); i > 0; --i) {
        if (in.range(0, 2) == 0)
          plan.push_back({0, in.range(0, 300)});  // zero-length, with context
        else
          add(in.range(1, 40));
      }
      break;
    case Shape::kLongPrefill:
      for (int64_t i = in.range(1, 3); i > 0; --i) add(in.range(1, 700));
      break;
    case Shape::kTokenPadding:
      for (int64_t i = in.range(1, 4); i > 0; --i) add(in.range(1, 5));
      break;
    case Shape::kRandom:
      for (int64_t i = in.range(1, 20); i > 0; --i) add(in.range(0, 5) == 0 ? 0 : in.range(1, 120));
      padded_requests();
      break;
  }
  return plan;
}

CacheKindConfig decode_cache(Decoder& in, int64_t drafts) {
  CacheKindConfig cache;
  const int64_t kind = in.range(0, 40);
  cache.kind = kind == 40 ? static_cast<CacheKind>(in.range(3, 255)) : static_cast<CacheKind>(kind % 3);
  switch (cache.kind) {
    case CacheKind::kCompressed:
      cache.compress_ratio = in.edgy(2, 64, {2, 4, 4, 8, 16, 3});
      cache.storage_block_size = in.edgy(1, 512, {1, 2, 4, 16, 200, 404});
      break;
    case CacheKind::kRing: {
      const int64_t c = in.pick({1, 2, 4, 8});
      cache.ring_capacity = in.flag() ? seed_ring_capacity(c, drafts) : in.range(1, 40);
      if (in.range(0, 2) == 0) cache.compress_ratio = in.flag() ? 1 : in.pick({2, 4, 8});
      break;
    }
    default:  // passthrough, or an unknown kind
      if (in.flag()) cache.compress_ratio = 1;
      break;
  }
  return cache;
}

BlockTable decode_block_table(Decoder& in, int64_t rows, int64_t needed_cols) {
  int64_t cols = needed_cols;
  switch (in.range(0, 7)) {
    case 0:
      cols = in.range(0, needed_cols);
      break;  // missing columns
    case 1:
      cols += in.range(1, 3);
      break;
    default:
      break;
  }
  cols = std::min<int64_t>(cols, 256);
  std::vector<std::vector<int32_t>> dense(static_cast<size_t>(rows), std::vector<int32_t>(static_cast<size_t>(cols)));
  const bool negatives = in.range(0, 2) == 0;
  for (auto& row : dense)
    for (auto& entry : row)
      entry = negatives && in.range(0, 5) == 0
                  ? static_cast<int32_t>(in.pick({-1, -1, -2, INT32_MIN}))
                  : static_cast<int32_t>(in.edgy(0, kInt32Max, {0, 1, 2, 7, 5000, kInt32Max}));
  switch (in.range(0, 3)) {
    case 0:
      return BlockTable::column_major(dense);
    case 1: {  // a column slice of a wider table: row stride beyond the width, an offset before column 0
      const int64_t pad = in.range(1, 3);
      BlockTable table;
      table.rows = rows;
      table.cols = cols;
      table.row_stride = cols + pad;
      table.col_stride = 1;
      table.storage.assign(static_cast<size_t>(rows * table.row_stride + pad), -7);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) table.storage[static_cast<size_t>(r * table.row_stride + c)] = dense[r][c];
      return table;
    }
    default:
      return BlockTable::from_rows(dense);
  }
}

// Replaces one field with an arbitrary value (which may or may not break a rule).
void perturb(Decoder& in, MetadataInput& input) {
  Batch& b = input.batch;
  auto any_index = [&](size_t size) { return static_cast<size_t>(in.range(0, static_cast<int64_t>(size) - 1)); };
  switch (in.range(0, 17)) {
    case 0:
      input.cache.kind = static_cast<CacheKind>(in.range(0, 7));
      break;
    case 1:
      input.cache.compress_ratio = in.wild();
      break;
    case 2:
      input.cache.compress_ratio.reset();
      break;
    case 3:
      input.cache.storage_block_size = in.wild();
      break;
    case 4:
      input.cache.ring_capacity = in.wild();
      break;
    case 5:
      input.cache.request_capacity = in.flag() ? in.wild() : b.num_requests() + in.range(-2, 2);
      break;
    case 6:
      b.reorder_batch_threshold = in.wild();
      break;
    case 7:
      b.query_start_loc.resize(static_cast<size_t>(in.range(0, 1)));
      break;
    case 8:
      if (!b.query_start_loc.empty()) b.query_start_loc[any_index(b.query_start_loc.size())] = in.wild();
      break;
    case 9:
      if (b.query_start_loc.size() > 2) std::swap(b.query_start_loc[1], b.query_start_loc.back());
      break;
    case 10: {
      // M may be anything after an earlier perturbation of qsl: clamped so nothing here overflows.
      const int64_t m = std::clamp<int64_t>(b.num_mapped_tokens(), -(int64_t{1} << 40), int64_t{1} << 40);
      b.num_actual_tokens = in.flag() ? in.wild() : m + in.range(-2, 2);
      // A valid N far beyond M only costs memory (every output has N rows): past M + 2^16 it is
      // moved just beyond SPEC 1.3's limit instead, which stays a cheap rejection.
      if (b.num_actual_tokens > m + (int64_t{1} << 16) && b.num_actual_tokens <= (int64_t{1} << 24))
        b.num_actual_tokens = (int64_t{1} << 24) + 1;
      break;
    }
    case 11:
      b.seq_lens.resize(static_cast<size_t>(std::max<int64_t>(0, b.num_requests() + in.range(-2, 2))));
      break;
    case 12:
      if (!b.seq_lens.empty()) b.seq_lens[any_index(b.seq_lens.size())] = in.wild();
      break;
    case 13:
      b.common_slot_mapping.resize(static_cast<size_t>(
          std::max<int64_t>(0, static_cast<int64_t>(b.common_slot_mapping.size()) + in.range(-3, 1))));
      break;
    case 14:
      if (!b.common_slot_mapping.empty()) b.common_slot_mapping[any_index(b.common_slot_mapping.size())] = in.wild();
      break;
    case 15:
      input.block_table.rows = std::max<int64_t>(0, input.block_table.rows + in.range(-3, 1));
      break;
    case 16: {  // strides or storage that need not cover the table
      BlockTable& t = input.block_table;
      switch (in.range(0, 3)) {
        case 0:
          t.row_stride = in.wild();
          break;
        case 1:
          t.col_stride = in.wild();
          break;
        case 2:
          t.cols = in.range(0, 300);
          break;
        default:
          t.storage.resize(static_cast<size_t>(in.range(0, static_cast<int64_t>(t.storage.size()))));
          break;
      }
      break;
    }
    default:  // a real row's common slot negative, or a padding row's made non-negative
      if (!b.common_slot_mapping.empty())
        b.common_slot_mapping[any_index(b.common_slot_mapping.size())] = in.range(-3, 3);
      break;
  }
}

}  // namespace

MetadataInput decode_metadata_input(Decoder& in) {
  MetadataInput input;
  const int64_t drafts = in.range(0, 4);
  input.cache = decode_cache(in, drafts);
  Batch& b = input.batch;
  b.reorder_batch_threshold = in.pick({1, 1 + drafts, 1 + drafts, in.range(1, 16)});

  const auto shape = static_cast<Shape>(in.range(0, 7));
  const std::vector<Request> plan = plan_requests(in, shape, drafts);
  b.query_start_loc = {0};
  int64_t max_seq = 0;
  for (const Request& r : plan) {
    b.query_start_loc.push_back(b.query_start_loc.back() + r.length);
    b.seq_lens.push_back(r.start + r.length);
    max_seq = std::max(max_seq, r.start + r.length);
  }
  const int64_t m = b.query_start_loc.back();
  int64_t padding = 0;
  if (shape == Shape::kTokenPadding)
    padding = in.range(m + 1, 8 * m + 300);
  else if (in.range(0, 3) == 0)
    padding = in.edgy(1, 64, {1, 2, 3, 7, 8});
  b.num_actual_tokens = m + padding;
  for (int64_t t = 0; t < b.num_actual_tokens; ++t) {
    const bool negative = t >= m || in.range(0, 9) == 0;  // negative common slots on some real rows
    b.common_slot_mapping.push_back(negative ? -in.edgy(1, 3, {1}) : in.range(0, 100000));
  }
  for (int64_t extra = in.range(0, 6) == 0 ? in.range(1, 3) : 0; extra > 0; --extra)
    b.common_slot_mapping.push_back(in.range(-1, 5));

  int64_t needed = 1;
  if (input.cache.kind == CacheKind::kCompressed)
    needed = std::min<int64_t>(max_seq / *input.cache.compress_ratio / input.cache.storage_block_size + 1, 64);
  input.block_table = decode_block_table(in, b.num_requests() + (in.range(0, 3) == 0 ? in.range(1, 2) : 0), needed);
  if (input.cache.kind == CacheKind::kCompressed && in.range(0, 2) == 0)
    input.cache.request_capacity = b.num_requests() + in.range(0, 3);

  // About one input in four has fields replaced by arbitrary values.
  if (in.range(0, 3) == 0)
    for (int64_t n = in.range(1, 3); n > 0 && !in.empty(); --n) perturb(in, input);
  return input;
}

bool block_table_well_formed(const BlockTable& t) {
  if (t.rows < 0 || t.cols < 0 || t.row_stride < 0 || t.col_stride < 0) return false;
  if (t.rows == 0 || t.cols == 0) return true;
  const __int128 last =
      static_cast<__int128>(t.rows - 1) * t.row_stride + static_cast<__int128>(t.cols - 1) * t.col_stride;
  return last < static_cast<__int128>(t.storage.size());
}

std::optional<ExpectedError> spec_validation(const MetadataInput& input) {
  const Batch& b = input.batch;
  const CacheKindConfig& cache = input.cache;
  const auto& qsl = b.query_start_loc;
  const int64_t nr = qsl.empty() ? 0 : static_cast<int64_t>(qsl.size()) - 1;
  auto error = [](const char* field, const char* rule) {
    return std::optional<ExpectedError>(ExpectedError{field, rule});
  };
  auto outside = [](const std::optional<int64_t>& v, int64_t lo, int64_t hi) { return v && (*v < lo || *v > hi); };

  // 1. The kind and its parameters, then T.
  switch (cache.kind) {
    case CacheKind::kCompressed:
      if (!cache.compress_ratio || outside(cache.compress_ratio, 2, 1024))
        return error("compress_ratio", "out-of-range");
      if (outside(cache.storage_block_size, 1, int64_t{1} << 20)) return error("storage_block_size", "out-of-range");
      if (outside(cache.request_capacity, nr, int64_t{1} << 20)) return error("request_capacity", "out-of-range");
      break;
    case CacheKind::kRing:
      if (outside(cache.compress_ratio, 1, 1024)) return error("compress_ratio", "out-of-range");
      if (outside(cache.ring_capacity, 1, int64_t{1} << 20)) return error("ring_capacity", "out-of-range");
      break;
    case CacheKind::kPassthrough:
      if (outside(cache.compress_ratio, 1, 1)) return error("compress_ratio", "out-of-range");
      break;
    default:
      return error("kind", "unknown-kind");
  }
  if (outside(b.reorder_batch_threshold, 1, int64_t{1} << 24)) return error("reorder_batch_threshold", "out-of-range");

  // 2. query_start_loc.
  if (qsl.size() < 2) return error("query_start_loc", "too-short");
  if (qsl[0] != 0) return error("query_start_loc", "nonzero-start");
  for (size_t i = 1; i < qsl.size(); ++i)
    if (qsl[i] < qsl[i - 1]) return error("query_start_loc", "decreasing");
  if (nr > (int64_t{1} << 20)) return error("query_start_loc", "out-of-range");
  for (int64_t v : qsl)
    if (v > kInt32Max) return error("query_start_loc", "out-of-range");

  // 3. num_actual_tokens.
  const int64_t m = qsl.back();
  if (b.num_actual_tokens < m || b.num_actual_tokens > (int64_t{1} << 24))
    return error("num_actual_tokens", "out-of-range");

  // 4. seq_lens.
  if (static_cast<int64_t>(b.seq_lens.size()) != nr) return error("seq_lens", "wrong-length");
  for (int64_t j = 0; j < nr; ++j)
    if (b.seq_lens[j] < qsl[j + 1] - qsl[j]) return error("seq_lens", "shorter-than-query");
  for (int64_t e : b.seq_lens)
    if (e > kInt32Max) return error("seq_lens", "out-of-range");

  // 5. common_slot_mapping, read by the compressed and passthrough kinds.
  if (cache.kind != CacheKind::kRing) {
    if (static_cast<int64_t>(b.common_slot_mapping.size()) < b.num_actual_tokens)
      return error("common_slot_mapping", "too-short");
    for (int64_t t = m; t < b.num_actual_tokens; ++t)
      if (b.common_slot_mapping[t] >= 0) return error("common_slot_mapping", "padding-not-negative");
  }

  // 6. block_table (and docs/decisions.md's malformed rule).
  if (input.block_table.rows < nr) return error("block_table", "too-few-rows");
  if (!block_table_well_formed(input.block_table)) return error("block_table", "malformed");
  return std::nullopt;
}

}  // namespace qsa::fuzz
