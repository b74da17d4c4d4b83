#include "qsa/types.hpp"

#include <algorithm>

#include "qsa/validate.hpp"

namespace qsa {

const char* to_string(CacheKind kind) {
  switch (kind) {
    case CacheKind::kCompressed:
      return "compressed";
    case CacheKind::kRing:
      return "ring";
    case CacheKind::kPassthrough:
      return "passthrough";
  }
  return "unknown";
}

std::optional<CacheKind> parse_cache_kind(std::string_view text) {
  if (text == "compressed") return CacheKind::kCompressed;
  if (text == "ring") return CacheKind::kRing;
  if (text == "passthrough") return CacheKind::kPassthrough;
  return std::nullopt;
}

bool BlockTable::is_well_formed() const {
  if (rows < 0 || cols < 0 || row_stride < 0 || col_stride < 0) return false;
  if (rows == 0 || cols == 0) return true;
  // The last element, (rows - 1)·row_stride + (cols - 1)·col_stride, must be <= size - 1. Checked
  // term by term with divisions, so strides near 2^63 cannot overflow (fuzz/FINDINGS.md, finding 4).
  const auto size = static_cast<int64_t>(storage.size());
  if (size == 0) return false;
  const int64_t limit = size - 1;
  if (row_stride != 0 && rows - 1 > limit / row_stride) return false;
  const int64_t row_part = (rows - 1) * row_stride;  // <= limit
  return col_stride == 0 || cols - 1 <= (limit - row_part) / col_stride;
}

BlockTable BlockTable::from_rows(const std::vector<std::vector<int32_t>>& rows) {
  BlockTable table;
  table.rows = static_cast<int64_t>(rows.size());
  table.cols = rows.empty() ? 0 : static_cast<int64_t>(rows.front().size());
  table.row_stride = table.cols;
  table.col_stride = 1;
  for (const auto& row : rows) table.storage.insert(table.storage.end(), row.begin(), row.end());
  return table;
}

BlockTable BlockTable::column_major(const std::vector<std::vector<int32_t>>& rows) {
  BlockTable table;
  table.rows = static_cast<int64_t>(rows.size());
  table.cols = rows.empty() ? 0 : static_cast<int64_t>(rows.front().size());
  table.row_stride = 1;
  table.col_stride = table.rows;
  table.storage.resize(static_cast<size_t>(table.rows * table.cols));
  for (int64_t r = 0; r < table.rows; ++r)
    for (int64_t c = 0; c < table.cols; ++c) table.storage[static_cast<size_t>(c * table.rows + r)] = rows[r][c];
  return table;
}

int64_t CacheKindConfig::builder_ratio() const {
  switch (kind) {
    case CacheKind::kCompressed:
      return compress_ratio.value_or(1);
    case CacheKind::kRing:
      return compress_ratio.value_or(1);
    case CacheKind::kPassthrough:
      return 1;
  }
  return 1;
}

bool BatchSplit::operator==(const BatchSplit& o) const {
  return num_decodes == o.num_decodes && num_decode_tokens == o.num_decode_tokens && num_prefills == o.num_prefills &&
         num_prefill_tokens == o.num_prefill_tokens && max_query_len == o.max_query_len &&
         decode_query_len == o.decode_query_len && max_seq_len == o.max_seq_len;
}

int64_t k_work_rows(const MetadataInput& input) {
  if (input.cache.kind != CacheKind::kCompressed) return 0;
  // Exact for every valid input. The operands are first clamped to SPEC 1.3's limits, so an invalid
  // input (poisoned before validate() rejects it) cannot overflow: fuzz/FINDINGS.md, finding 2.
  const int64_t c = std::clamp<int64_t>(input.cache.compress_ratio.value_or(1), 1, kMaxCompressRatio);
  const int64_t n = std::clamp<int64_t>(input.batch.num_actual_tokens, 0, kMaxTokens);
  const int64_t nr = std::min(input.batch.num_requests(), kMaxRequests);
  return k_work_rows(n, nr, c);
}

MetadataOutput make_poisoned_metadata_output(const MetadataInput& input) {
  // An invalid input gets empty outputs: the backend must reject it and write nothing, and
  // poisoning must not allocate for a number the input merely claims (fuzz/FINDINGS.md, 2).
  Error ignored;
  const bool valid = validate(input, &ignored) == Status::kOk;
  const auto n = static_cast<size_t>(valid ? input.batch.num_actual_tokens : 0);
  const auto k = static_cast<size_t>(valid ? k_work_rows(input) : 0);
  MetadataOutput out;
  out.token_to_req.assign(n, kPoison32);
  out.logical_positions.assign(n, kPoison64);
  out.visible_blocks.assign(n, kPoison32);
  out.slot_mapping.assign(n, kPoison64);
  out.k_work_metadata.assign(2 * k, kPoison32);
  out.split = BatchSplit{kPoison64, kPoison64, kPoison64, kPoison64, kPoison64, kPoison64, kPoison64};
  return out;
}

}  // namespace qsa
