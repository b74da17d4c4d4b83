// SPEC 2 row by row, as a kernel computes it (one thread per row), with the metadata bugs planted.

#include "cpu_metadata.hpp"

#include <algorithm>
#include <string>

#include "qsa/validate.hpp"

namespace qsa::planted {
namespace {

struct RowPlace {
  int64_t request = 0;
  int64_t position = -1;
};

// The request of mapped row t: the largest j with qsl[j] <= t, never a zero-length one.
int64_t request_of_row(Bug bug, const Batch& b, int64_t t) {
  const auto& qsl = b.query_start_loc;
  if (bug == Bug::kRequestsCappedAt1024) {  // a 1024-request shared-memory copy of qsl[0 .. 1024]
    const auto end = qsl.begin() + std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(qsl.size()), 1025);
    return std::upper_bound(qsl.begin(), end, t) - qsl.begin() - 1;
  }
  if (bug == Bug::kTokenToReqLowerBound) {
    // lower_bound stops at the first of several equal offsets: the zero-length request before j.
    const auto j = std::lower_bound(qsl.begin(), qsl.end(), t) - qsl.begin();
    return qsl[j] == t ? j : j - 1;
  }
  return std::upper_bound(qsl.begin(), qsl.end(), t) - qsl.begin() - 1;
}

// Request and logical position of row t; padding rows are (0, -1) unless the padding bug is planted.
RowPlace place_of_row(Bug bug, const Batch& b, int64_t t) {
  if (t >= b.num_mapped_tokens()) {
    if (bug != Bug::kPaddingRowsNotInert) return {};
    const int64_t last = b.num_requests() - 1;  // the unguarded loop clamps j to the last request
    return {last, b.chunk_start(last) + (t - b.query_start_loc[last])};
  }
  const int64_t j = request_of_row(bug, b, t);
  return {j, b.chunk_start(j) + (t - b.query_start_loc[j])};
}

// floor(log2 c): the shift a kernel uses when it takes C for a power of two.
int64_t log2_floor(int64_t c) {
  int64_t shift = 0;
  while ((int64_t{2} << shift) <= c) ++shift;
  return shift;
}

// x / c, by a shift under kCompressRatioShift.
int64_t divide(Bug bug, int64_t x, int64_t c) { return bug == Bug::kCompressRatioShift ? x >> log2_floor(c) : x / c; }

int64_t visible_blocks(Bug bug, int64_t p, int64_t e, int64_t cb) {
  const int64_t closed = bug == Bug::kVisibleBlocksOffByOne ? (p + 2) / cb : divide(bug, p + 1, cb);
  return std::max<int64_t>(0, std::min(closed, divide(bug, e, cb)));
}

int64_t ring_slot(Bug bug, const MetadataInput& in, int64_t t, int64_t j, int64_t p) {
  const int64_t r = in.cache.ring_capacity;
  // The short ring keeps and addresses R - 1 rows but its blocks are still R rows apart.
  const int64_t rows = bug == Bug::kRingOneRowShort ? std::max<int64_t>(1, r - 1) : r;
  const bool kept = bug == Bug::kRingSuffixFilterDropped || t + rows >= in.batch.query_start_loc[j + 1];
  if (p < 0 || !kept || in.block_table.cols == 0) return -1;
  const int64_t block = table_entry(bug, in.block_table, j, 0);
  if (block < 0) return -1;
  const int64_t row = bug == Bug::kRingIndexOffByOne ? (p + 1) % r : p % rows;
  return block * r + row;
}

int64_t compressed_slot(Bug bug, const MetadataInput& in, int64_t t, int64_t j, int64_t p) {
  const int64_t c = *in.cache.compress_ratio;
  const int64_t s = in.cache.storage_block_size;
  const bool closes = bug == Bug::kCompressRatioShift ? ((p + 1) & (c - 1)) == 0 : (p + 1) % c == 0;
  if (p < 0 || !closes) return -1;
  const int64_t g = divide(bug, p, c);
  if (g / s >= in.block_table.cols) return -1;
  const int64_t block = table_entry(bug, in.block_table, j, g / s);
  const bool common_ok = bug == Bug::kCompressedSlotIgnoresCommon || in.batch.common_slot_mapping[t] >= 0;
  if (block < 0 || !common_ok) return -1;
  if (bug == Bug::kSlotInt32Overflow)  // int32 multiply-add: wraps (two's complement) past 2^31
    return static_cast<int32_t>(static_cast<uint32_t>(block) * static_cast<uint32_t>(s) + static_cast<uint32_t>(g % s));
  return block * s + g % s;
}

int64_t slot_for_row(Bug bug, const MetadataInput& in, int64_t t, int64_t j, int64_t p) {
  switch (in.cache.kind) {
    case CacheKind::kPassthrough: {
      const int64_t common = bug == Bug::kPassthroughSlotInt32
                                 ? static_cast<int32_t>(static_cast<uint32_t>(in.batch.common_slot_mapping[t]))
                                 : in.batch.common_slot_mapping[t];
      if (bug == Bug::kPassthroughMinusOneOnly) return common == -1 ? -1 : common;
      return common < 0 ? -1 : common;
    }
    case CacheKind::kRing:
      return ring_slot(bug, in, t, j, p);
    case CacheKind::kCompressed:
      return compressed_slot(bug, in, t, j, p);
  }
  return -1;
}

int64_t k_work_items(Bug bug, const Batch& b, int64_t j, int64_t c) {
  if (bug != Bug::kKWorkWithoutMinimum) return qsa::k_work_items(b.query_len(j), b.seq_lens[j], c);
  return b.query_len(j) == 0 ? 0 : b.seq_lens[j] / c - b.chunk_start(j) / c;  // the bug: no max(1, ...)
}

Status fill_k_work(Bug bug, const MetadataInput& in, MetadataOutput* out, Error* error) {
  const int64_t k = k_work_rows(in);
  out->k_work_metadata.assign(2 * k, -1);
  if (in.cache.kind != CacheKind::kCompressed) return Status::kOk;
  int64_t row = 0;
  for (int64_t j = 0; j < in.batch.num_requests(); ++j) {
    const int64_t items = k_work_items(bug, in.batch, j, *in.cache.compress_ratio);
    if (row + items > k)
      return invalid(error, "k_work_metadata", row, "internal", "work items exceed K = " + std::to_string(k));
    for (int64_t w = 0; w < items; ++w, ++row) {
      out->k_work_metadata[2 * row] = static_cast<int32_t>(j);
      out->k_work_metadata[2 * row + 1] = static_cast<int32_t>(w);
    }
  }
  return Status::kOk;
}

// No request with 0 < q <= T: "no decodes" when decodes come first, q_0 > T otherwise.
bool no_short_request(const Batch& b) {
  for (int64_t j = 0; j < b.num_requests(); ++j)
    if (b.query_len(j) > 0 && b.query_len(j) <= b.reorder_batch_threshold) return false;
  return true;
}

// SPEC 2 "Batch split"; the bug turns upstream's old N = NR·q0 assertion into a condition of rule 3.
BatchSplit split_batch(Bug bug, const Batch& b) {
  const int64_t nr = b.num_requests();
  const int64_t n = b.num_actual_tokens;
  int64_t first = 0;  // request 0, or under the bug the first non-empty one
  while (bug == Bug::kZeroLengthFirstSkipped && first + 1 < nr && b.query_len(first) == 0) ++first;
  const int64_t q0 = nr > 0 ? b.query_len(first) : 0;
  BatchSplit split;
  bool uniform = true;
  int64_t first_other = nr;
  for (int64_t j = 0; j < nr; ++j) {
    const int64_t q = b.query_len(j);
    split.max_query_len = std::max(split.max_query_len, q);
    split.max_seq_len = std::max(split.max_seq_len, b.seq_lens[j]);
    if (q != q0 && q != 0) uniform = false;
    if (q != q0 && first_other == nr) first_other = j;
  }
  if (bug == Bug::kBatchSplitExactPadding && n != nr * q0) uniform = false;

  const int64_t t = b.reorder_batch_threshold;
  if (split.max_query_len <= t && t <= 1) {
    split.num_decodes = nr;
    split.num_decode_tokens = n;
  } else if (bug == Bug::kSplitAssumesDecodesFirst ? no_short_request(b) : q0 > t) {
    split.num_decodes = 0;
  } else if (uniform) {
    split.num_decodes = nr;
    split.num_decode_tokens = n;
  } else {
    split.num_decodes = first_other;
    split.num_decode_tokens = b.query_start_loc[first_other];
  }
  split.num_prefills = nr - split.num_decodes;
  split.num_prefill_tokens = n - split.num_decode_tokens;
  for (int64_t j = 0; j < split.num_decodes && split.decode_query_len == 0; ++j)
    split.decode_query_len = b.query_len(j);
  return split;
}

// The rows a launch of at most 65535 blocks of 256 threads covers, one row per thread.
constexpr int64_t kGridLimitRows = int64_t{65535} * 256;

// A validation that skips request_capacity under kRequestCapacityUnchecked.
Status validate_input(Bug bug, const MetadataInput& input, Error* error) {
  if (bug != Bug::kRequestCapacityUnchecked) return validate(input, error);
  MetadataInput trusted = input;
  trusted.cache.request_capacity.reset();
  return validate(trusted, error);
}

}  // namespace

int32_t table_entry(Bug bug, const BlockTable& table, int64_t row, int64_t col) {
  const int32_t entry =
      bug == Bug::kBlockTableRowMajor ? table.storage[static_cast<size_t>(row * table.cols + col)] : table.at(row, col);
  return bug == Bug::kMissingBlockAsBlockZero && entry < 0 ? 0 : entry;
}

Status build_metadata(Bug bug, const MetadataInput& input, MetadataOutput* output, Error* error) {
  // A kernel that clears its outputs first, then validates: a rejected input is no longer untouched.
  if (bug == Bug::kClearsOutputBeforeValidating) output->split = BatchSplit{};
  if (Status s = validate_input(bug, input, error); s != Status::kOk) {
    if (bug == Bug::kErrorIndexOneBased) ++error->index;  // e.g. a row counted from 1 in the message's index
    return s;
  }
  const Batch& b = input.batch;
  const int64_t n = b.num_actual_tokens;
  MetadataOutput out;
  out.token_to_req.assign(n, 0);
  out.logical_positions.assign(n, -1);
  out.visible_blocks.assign(n, 0);
  out.slot_mapping.assign(n, -1);
  for (int64_t t = 0; t < n; ++t) {
    if (bug == Bug::kRowsPastGridLimit && t >= kGridLimitRows) {    // no thread for it: what was there stays
      if (t < static_cast<int64_t>(output->slot_mapping.size())) {  // the caller's buffers (poisoned)
        out.token_to_req[t] = output->token_to_req[t];
        out.logical_positions[t] = output->logical_positions[t];
        out.visible_blocks[t] = output->visible_blocks[t];
        out.slot_mapping[t] = output->slot_mapping[t];
      }
      continue;
    }
    if (bug == Bug::kPassthroughMinusOneOnly && input.cache.kind == CacheKind::kPassthrough) {
      // The copy runs over all N rows ("padding slots are negative anyway") and tests for -1 only.
      const int64_t common = b.common_slot_mapping[t];
      out.slot_mapping[t] = common == -1 ? -1 : common;
    }
    const RowPlace row = place_of_row(bug, b, t);
    if (row.position < 0) continue;  // an inert padding row
    out.token_to_req[t] = static_cast<int32_t>(row.request);
    out.logical_positions[t] = row.position;
    out.visible_blocks[t] =
        static_cast<int32_t>(visible_blocks(bug, row.position, b.seq_lens[row.request], input.cache.builder_ratio()));
    if (t < b.num_mapped_tokens()) out.slot_mapping[t] = slot_for_row(bug, input, t, row.request, row.position);
  }
  if (Status s = fill_k_work(bug, input, &out, error); s != Status::kOk) return s;
  out.split = split_batch(bug, b);
  *output = std::move(out);
  return Status::kOk;
}

}  // namespace qsa::planted
