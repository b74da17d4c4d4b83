#include "metadata_decoder.hpp"

#include <algorithm>
#include <vector>

#include "fuzzed_data_choice.hpp"
#include "qsa/traces/edge_batch_generator.hpp"

namespace qsa::fuzz {
namespace {

constexpr int64_t kInt32Max = 2147483647;

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
  // A valid edge-shaped batch (the generator the campaign and the properties use), its decisions
  // read from the input's bytes; table widths kept small so an input stays cheap.
  FuzzedDataChoice choice(in.provider());
  traces::EdgeBatchOptions options;
  options.max_tokens = 1024;
  options.max_table_cols = 256;
  MetadataInput input = traces::edge_metadata_batch(choice, options).input;

  // About one input in four has fields replaced by arbitrary values (an unknown kind among them).
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
