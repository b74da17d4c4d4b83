#include "qsa/validate.hpp"

#include <string>

namespace qsa {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

Status check_range(const char* field, int64_t value, int64_t lo, int64_t hi, const std::string& why, Error* error) {
  if (value >= lo && value <= hi) return Status::kOk;
  return invalid(error, field, -1, "out-of-range",
                 str(value) + " is outside [" + str(lo) + ", " + str(hi) + "]" + (why.empty() ? "" : ": " + why));
}

}  // namespace

Status validate_cache_config(const CacheKindConfig& cache, int64_t num_requests, Error* error) {
  Status s = Status::kOk;
  switch (cache.kind) {
    case CacheKind::kCompressed:
      if (!cache.compress_ratio)
        return invalid(error, "compress_ratio", -1, "out-of-range", "required for the compressed kind (C >= 2)");
      if ((s = check_range("compress_ratio", *cache.compress_ratio, 2, kMaxCompressRatio,
                           "compressed kind needs 2 <= C <= 1024", error)) != Status::kOk)
        return s;
      if ((s = check_range("storage_block_size", cache.storage_block_size, 1, kMaxStorageBlockSize, "", error)) !=
          Status::kOk)
        return s;
      if (cache.request_capacity &&
          (s = check_range("request_capacity", *cache.request_capacity, num_requests, kMaxRequests,
                           "must hold every request of the batch (NR = " + str(num_requests) + ")", error)) !=
              Status::kOk)
        return s;
      return Status::kOk;
    case CacheKind::kRing:
      if (cache.compress_ratio && (s = check_range("compress_ratio", *cache.compress_ratio, 1, kMaxCompressRatio,
                                                   "ring builder ratio", error)) != Status::kOk)
        return s;
      return check_range("ring_capacity", cache.ring_capacity, 1, kMaxRingCapacity, "", error);
    case CacheKind::kPassthrough:
      if (cache.compress_ratio && *cache.compress_ratio != 1)
        return invalid(error, "compress_ratio", -1, "out-of-range",
                       "passthrough takes no compression (omit it or give 1), got " + str(*cache.compress_ratio));
      return Status::kOk;
  }
  return invalid(error, "kind", -1, "unknown-kind", "kind must be compressed, ring or passthrough");
}

Status validate_batch(const Batch& batch, Error* error) {
  // 2. query_start_loc
  const auto& qsl = batch.query_start_loc;
  if (qsl.size() < 2)
    return invalid(error, "query_start_loc", -1, "too-short",
                   "needs NR + 1 >= 2 entries, got " + str(static_cast<int64_t>(qsl.size())));
  if (qsl[0] != 0)
    return invalid(error, "query_start_loc", 0, "nonzero-start", "query_start_loc[0] must be 0, got " + str(qsl[0]));
  for (size_t i = 1; i < qsl.size(); ++i)
    if (qsl[i] < qsl[i - 1])
      return invalid(error, "query_start_loc", static_cast<int64_t>(i), "decreasing",
                     str(qsl[i]) + " < previous " + str(qsl[i - 1]));
  const int64_t nr = batch.num_requests();
  if (nr > kMaxRequests)
    return invalid(error, "query_start_loc", kMaxRequests + 1, "out-of-range",
                   "NR = " + str(nr) + " exceeds 2^20 requests");
  for (size_t i = 1; i < qsl.size(); ++i)
    if (qsl[i] > kMaxInt32)
      return invalid(error, "query_start_loc", static_cast<int64_t>(i), "out-of-range",
                     str(qsl[i]) + " does not fit int32");

  // 3. num_actual_tokens
  const int64_t m = batch.num_mapped_tokens();
  const int64_t n = batch.num_actual_tokens;
  if (n < m || n > kMaxTokens)
    return invalid(error, "num_actual_tokens", -1, "out-of-range",
                   "N = " + str(n) + " must satisfy M = " + str(m) + " <= N <= 2^24");

  // 4. seq_lens
  const auto& seq = batch.seq_lens;
  if (static_cast<int64_t>(seq.size()) != nr)
    return invalid(error, "seq_lens", -1, "wrong-length",
                   "has " + str(static_cast<int64_t>(seq.size())) + " entries, NR = " + str(nr));
  for (int64_t j = 0; j < nr; ++j)
    if (seq[j] < batch.query_len(j))
      return invalid(error, "seq_lens", j, "shorter-than-query",
                     "e_j = " + str(seq[j]) + " < q_j = " + str(batch.query_len(j)));
  for (int64_t j = 0; j < nr; ++j)
    if (seq[j] > kMaxInt32) return invalid(error, "seq_lens", j, "out-of-range", str(seq[j]) + " does not fit int32");
  return Status::kOk;
}

Status validate(const MetadataInput& input, Error* error) {
  const Batch& batch = input.batch;
  // 1. kind and its parameters, then the decode threshold.
  Status s = validate_cache_config(input.cache, batch.num_requests(), error);
  if (s != Status::kOk) return s;
  if (batch.reorder_batch_threshold < 1 || batch.reorder_batch_threshold > kMaxTokens)
    return invalid(error, "reorder_batch_threshold", -1, "out-of-range",
                   "T = " + str(batch.reorder_batch_threshold) + " must be in [1, 2^24]");

  // 2-4. query_start_loc, num_actual_tokens, seq_lens.
  if ((s = validate_batch(batch, error)) != Status::kOk) return s;

  // 5. common_slot_mapping (compressed and passthrough read it).
  if (input.cache.kind != CacheKind::kRing) {
    const auto& slots = batch.common_slot_mapping;
    const int64_t n = batch.num_actual_tokens;
    if (static_cast<int64_t>(slots.size()) < n)
      return invalid(error, "common_slot_mapping", -1, "too-short",
                     "has " + str(static_cast<int64_t>(slots.size())) + " entries, N = " + str(n));
    for (int64_t t = batch.num_mapped_tokens(); t < n; ++t)
      if (slots[t] >= 0)
        return invalid(error, "common_slot_mapping", t, "padding-not-negative",
                       "padding row " + str(t) + " has slot " + str(slots[t]));
  }

  // 6. block_table
  const BlockTable& table = input.block_table;
  if (table.rows < batch.num_requests())
    return invalid(error, "block_table", -1, "too-few-rows",
                   "has " + str(table.rows) + " rows, NR = " + str(batch.num_requests()));
  if (!table.is_well_formed())
    return invalid(error, "block_table", -1, "malformed",
                   "strides or storage do not cover " + str(table.rows) + " x " + str(table.cols));
  return Status::kOk;
}

}  // namespace qsa
