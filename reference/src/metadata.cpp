#include "qsa/reference/metadata.hpp"

#include <algorithm>
#include <string>

#include "qsa/validate.hpp"

namespace qsa::reference {

BatchSplit split_decodes_and_prefills(const Batch& batch) {
  const int64_t nr = batch.num_requests();
  const int64_t n = batch.num_actual_tokens;
  const int64_t t = batch.reorder_batch_threshold;
  BatchSplit split;
  for (int64_t j = 0; j < nr; ++j) {
    split.max_query_len = std::max(split.max_query_len, batch.query_len(j));
    split.max_seq_len = std::max(split.max_seq_len, batch.seq_lens[j]);
  }

  const int64_t q0 = nr > 0 ? batch.query_len(0) : 0;
  bool uniform = true;       // every q_j equals q_0 or is 0
  int64_t first_other = nr;  // the first j with q_j != q_0 (a zero-length request counts)
  for (int64_t j = 0; j < nr; ++j) {
    const int64_t q = batch.query_len(j);
    if (q != q0 && q != 0) uniform = false;
    if (q != q0 && first_other == nr) first_other = j;
  }

  if (split.max_query_len <= t && t <= 1) {  // rule 1
    split.num_decodes = nr;
    split.num_decode_tokens = n;
  } else if (q0 > t) {  // rule 2
    split.num_decodes = 0;
    split.num_decode_tokens = 0;
  } else if (uniform) {  // rule 3: a padded uniform batch (no N = NR·q_0 assertion, SPEC 10)
    split.num_decodes = nr;
    split.num_decode_tokens = n;
  } else {  // rule 4
    split.num_decodes = first_other;
    split.num_decode_tokens = batch.query_start_loc[first_other];
  }
  split.num_prefills = nr - split.num_decodes;
  split.num_prefill_tokens = n - split.num_decode_tokens;

  for (int64_t j = 0; j < split.num_decodes; ++j) {
    if (batch.query_len(j) > 0) {
      split.decode_query_len = batch.query_len(j);
      break;
    }
  }
  return split;
}

namespace {

// The slot of row t of request j with logical position p (SPEC 2, slot_mapping), or -1.
int64_t slot_for_row(const MetadataInput& in, int64_t t, int64_t j, int64_t p) {
  const Batch& b = in.batch;
  const BlockTable& table = in.block_table;
  switch (in.cache.kind) {
    case CacheKind::kPassthrough:
      return b.common_slot_mapping[t] < 0 ? -1 : b.common_slot_mapping[t];
    case CacheKind::kRing: {
      const int64_t r = in.cache.ring_capacity;
      const bool kept = t + r >= b.query_start_loc[j + 1];  // only the last R rows of the chunk survive
      if (p < 0 || !kept || table.cols == 0) return -1;
      const int64_t block = table.at(j, 0);
      if (block < 0) return -1;
      return block * r + p % r;
    }
    case CacheKind::kCompressed: {
      const int64_t c = *in.cache.compress_ratio;
      const int64_t s = in.cache.storage_block_size;
      if (p < 0 || (p + 1) % c != 0) return -1;  // only the row that closes a group
      const int64_t g = p / c;
      const int64_t logical_block = g / s;
      if (logical_block >= table.cols) return -1;
      const int64_t block = table.at(j, logical_block);
      if (block < 0 || b.common_slot_mapping[t] < 0) return -1;
      return block * s + g % s;
    }
  }
  return -1;
}

}  // namespace

Status build_metadata(const MetadataInput& input, MetadataOutput* output, Error* error) {
  if (Status s = validate(input, error); s != Status::kOk) return s;
  const Batch& b = input.batch;
  const int64_t n = b.num_actual_tokens;
  const int64_t nr = b.num_requests();
  const int64_t cb = input.cache.builder_ratio();

  MetadataOutput out;
  // Padding rows first: token_to_req 0, position -1, visible 0, slot -1.
  out.token_to_req.assign(n, 0);
  out.logical_positions.assign(n, -1);
  out.visible_blocks.assign(n, 0);
  out.slot_mapping.assign(n, -1);

  for (int64_t j = 0; j < nr; ++j) {
    const int64_t e = b.seq_lens[j];
    const int64_t start = b.chunk_start(j);
    for (int64_t t = b.query_start_loc[j]; t < b.query_start_loc[j + 1]; ++t) {
      const int64_t p = start + (t - b.query_start_loc[j]);
      out.token_to_req[t] = static_cast<int32_t>(j);
      out.logical_positions[t] = p;
      out.visible_blocks[t] = static_cast<int32_t>(std::max<int64_t>(0, std::min((p + 1) / cb, e / cb)));
      out.slot_mapping[t] = slot_for_row(input, t, j, p);
    }
  }

  const int64_t k = k_work_rows(input);
  out.k_work_metadata.assign(2 * k, -1);
  if (input.cache.kind == CacheKind::kCompressed) {
    const int64_t c = *input.cache.compress_ratio;
    int64_t row = 0;
    for (int64_t j = 0; j < nr; ++j) {
      const int64_t q = b.query_len(j);
      const int64_t items = k_work_items(q, b.seq_lens[j], c);
      // Sum of n_j <= K for every valid input (SPEC 2); the guard keeps a broken proof from writing out of bounds.
      if (row + items > k)
        return invalid(error, "k_work_metadata", row, "internal", "work items exceed K = " + std::to_string(k));
      for (int64_t w = 0; w < items; ++w, ++row) {
        out.k_work_metadata[2 * row] = static_cast<int32_t>(j);
        out.k_work_metadata[2 * row + 1] = static_cast<int32_t>(w);
      }
    }
  }

  out.split = split_decodes_and_prefills(b);
  *output = std::move(out);
  return Status::kOk;
}

}  // namespace qsa::reference
