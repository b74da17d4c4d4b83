// SPEC 2 row by row: token_to_req, logical positions, visible blocks and slots per kind, then the
// k-work items and the batch split.

#include <algorithm>

#include "example.hpp"

namespace example {
namespace {

int64_t slot(const KindParams& k, const QsaPluginBatch& b, const DLTensor& table, int64_t t, int64_t j, int64_t p) {
  const int64_t width = table.shape[1];
  if (k.kind == QSA_PLUGIN_KIND_ID_PASSTHROUGH) {
    const int64_t common = at<int64_t>(b.common_slot_mapping, t);
    return common < 0 ? -1 : common;
  }
  if (k.kind == QSA_PLUGIN_KIND_ID_RING) {
    const int64_t chunk_end = at<int32_t>(b.query_start_loc, j + 1);
    if (p < 0 || t + k.ring_capacity < chunk_end || width == 0) return -1;
    const int64_t block = at<int32_t>(table, j, 0);
    return block < 0 ? -1 : block * k.ring_capacity + p % k.ring_capacity;
  }
  if (p < 0 || (p + 1) % k.ratio != 0) return -1;
  const int64_t group = p / k.ratio;
  const int64_t logical = group / k.storage_block_size;
  if (logical >= width) return -1;
  const int64_t block = at<int32_t>(table, j, logical);
  if (block < 0 || at<int64_t>(b.common_slot_mapping, t) < 0) return -1;
  return block * k.storage_block_size + group % k.storage_block_size;
}

QsaBatchSplit split(const QsaPluginBatch& b) {
  const int64_t nr = b.seq_lens.shape[0];
  const int64_t n = b.num_actual_tokens;
  const int64_t threshold = b.reorder_batch_threshold;
  auto q = [&](int64_t j) {
    return int64_t{at<int32_t>(b.query_start_loc, j + 1)} - at<int32_t>(b.query_start_loc, j);
  };
  QsaBatchSplit s{};
  for (int64_t j = 0; j < nr; ++j) {
    s.max_query_len = std::max(s.max_query_len, q(j));
    s.max_seq_len = std::max<int64_t>(s.max_seq_len, at<int32_t>(b.seq_lens, j));
  }
  const int64_t q0 = nr > 0 ? q(0) : 0;
  int64_t first_other = nr;
  bool uniform = true;
  for (int64_t j = nr - 1; j >= 0; --j) {
    if (q(j) != q0) first_other = j;
    if (q(j) != q0 && q(j) != 0) uniform = false;
  }
  if ((s.max_query_len <= threshold && threshold <= 1) || (q0 <= threshold && uniform)) {
    s.num_decodes = nr;
    s.num_decode_tokens = n;
  } else if (q0 <= threshold) {
    s.num_decodes = first_other;
    s.num_decode_tokens = at<int32_t>(b.query_start_loc, first_other);
  }
  s.num_prefills = nr - s.num_decodes;
  s.num_prefill_tokens = n - s.num_decode_tokens;
  for (int64_t j = 0; j < s.num_decodes && s.decode_query_len == 0; ++j) s.decode_query_len = q(j);
  return s;
}

}  // namespace

Metadata build_metadata(const KindParams& k, const QsaPluginBatch& b, const DLTensor& table, Variant variant) {
  const int64_t n = b.num_actual_tokens;
  const int64_t nr = b.seq_lens.shape[0];
  Metadata m;
  m.token_to_req.assign(n, 0);
  m.logical_positions.assign(n, -1);
  m.visible_blocks.assign(n, 0);
  m.slot_mapping.assign(n, -1);
  for (int64_t j = 0; j < nr; ++j) {
    const int64_t first = at<int32_t>(b.query_start_loc, j);
    const int64_t end = at<int32_t>(b.query_start_loc, j + 1);
    const int64_t e = at<int32_t>(b.seq_lens, j);
    for (int64_t t = first; t < end; ++t) {
      const int64_t p = e - (end - first) + (t - first);
      m.token_to_req[t] = static_cast<int32_t>(j);
      m.logical_positions[t] = p;
      m.visible_blocks[t] = static_cast<int32_t>(std::max<int64_t>(0, std::min((p + 1) / k.ratio, e / k.ratio)));
      m.slot_mapping[t] = slot(k, b, table, t, j, p);
    }
  }
  if (k.kind == QSA_PLUGIN_KIND_ID_COMPRESSED) {
    const int64_t rows = (n + (k.ratio - 1) * nr) / k.ratio;
    m.k_work.assign(2 * rows, -1);
    int64_t row = 0;
    for (int64_t j = 0; j < nr; ++j) {
      const int64_t q = int64_t{at<int32_t>(b.query_start_loc, j + 1)} - at<int32_t>(b.query_start_loc, j);
      const int64_t e = at<int32_t>(b.seq_lens, j);
      const int64_t closing = e / k.ratio - (e - q) / k.ratio;
      const int64_t items = q == 0                                     ? 0
                            : variant == Variant::kKWorkWithoutMinimum ? closing
                                                                       : std::max<int64_t>(1, closing);
      for (int64_t w = 0; w < items && row < rows; ++w, ++row) {
        m.k_work[2 * row] = static_cast<int32_t>(j);
        m.k_work[2 * row + 1] = static_cast<int32_t>(w);
      }
    }
  }
  if (variant == Variant::kPassthroughMinusOneOnly && k.kind == QSA_PLUGIN_KIND_ID_PASSTHROUGH) {
    // "Padding slots are negative anyway": one copy over all N rows, testing for -1 only. Graph
    // padding rows hold stale negative slots other than -1 (SPEC 1.4 admits any negative value).
    for (int64_t t = 0; t < n; ++t) {
      const int64_t common = at<int64_t>(b.common_slot_mapping, t);
      m.slot_mapping[t] = common == -1 ? -1 : common;
    }
  }
  m.split = split(b);
  return m;
}

void write_metadata(const Metadata& m, const QsaPluginMetadata& out) {
  std::copy(m.token_to_req.begin(), m.token_to_req.end(), static_cast<int32_t*>(out.token_to_req.data));
  std::copy(m.logical_positions.begin(), m.logical_positions.end(), static_cast<int64_t*>(out.logical_positions.data));
  std::copy(m.visible_blocks.begin(), m.visible_blocks.end(), static_cast<int32_t*>(out.visible_blocks.data));
  std::copy(m.slot_mapping.begin(), m.slot_mapping.end(), static_cast<int64_t*>(out.slot_mapping.data));
  std::copy(m.k_work.begin(), m.k_work.end(), static_cast<int32_t*>(out.k_work_metadata.data));
  *out.split = m.split;
}

}  // namespace example
