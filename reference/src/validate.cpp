#include "qsa/validate.hpp"

#include "qsa/input_fields.hpp"

#include <string>

namespace qsa {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

Status check_range(Rule rule, int64_t value, int64_t lo, int64_t hi, const std::string& why, Error* error) {
  if (value >= lo && value <= hi) return Status::kOk;
  return invalid(error, rule, -1,
                 str(value) + " is outside [" + str(lo) + ", " + str(hi) + "]" + (why.empty() ? "" : ": " + why));
}

}  // namespace

Status validate_cache_config(const CacheKindConfig& cache, int64_t num_requests, Error* error) {
  Status s = Status::kOk;
  switch (cache.kind) {
    case CacheKind::kCompressed:
      if (!cache.compress_ratio)
        return invalid(error, Rule::kCompressRatioOutOfRange, -1, "required for the compressed kind (C >= 2)");
      if ((s = check_range(Rule::kCompressRatioOutOfRange, *cache.compress_ratio, 2, kMaxCompressRatio,
                           "compressed kind needs 2 <= C <= 1024", error)) != Status::kOk)
        return s;
      if ((s = check_range(Rule::kStorageBlockSizeOutOfRange, cache.storage_block_size, 1, kMaxStorageBlockSize, "",
                           error)) != Status::kOk)
        return s;
      if (cache.request_capacity &&
          (s = check_range(Rule::kRequestCapacityOutOfRange, *cache.request_capacity, num_requests, kMaxRequests,
                           "must hold every request of the batch (NR = " + str(num_requests) + ")", error)) !=
              Status::kOk)
        return s;
      return Status::kOk;
    case CacheKind::kRing:
      if (cache.compress_ratio && (s = check_range(Rule::kCompressRatioOutOfRange, *cache.compress_ratio, 1,
                                                   kMaxCompressRatio, "ring builder ratio", error)) != Status::kOk)
        return s;
      return check_range(Rule::kRingCapacityOutOfRange, cache.ring_capacity, 1, kMaxRingCapacity, "", error);
    case CacheKind::kPassthrough:
      if (cache.compress_ratio && *cache.compress_ratio != 1)
        return invalid(error, Rule::kCompressRatioOutOfRange, -1,
                       "passthrough takes no compression (omit it or give 1), got " + str(*cache.compress_ratio));
      return Status::kOk;
  }
  return invalid(error, Rule::kKindUnknown, -1, "kind must be compressed, ring or passthrough");
}

Status validate_batch(const Batch& batch, Error* error) {
  // 2. query_start_loc
  const auto& qsl = batch.query_start_loc;
  if (qsl.size() < 2)
    return invalid(error, Rule::kQueryStartLocTooShort, -1,
                   "needs NR + 1 >= 2 entries, got " + str(static_cast<int64_t>(qsl.size())));
  if (qsl[0] != 0)
    return invalid(error, Rule::kQueryStartLocNonzeroStart, 0, "query_start_loc[0] must be 0, got " + str(qsl[0]));
  for (size_t i = 1; i < qsl.size(); ++i)
    if (qsl[i] < qsl[i - 1])
      return invalid(error, Rule::kQueryStartLocDecreasing, static_cast<int64_t>(i),
                     str(qsl[i]) + " < previous " + str(qsl[i - 1]));
  const int64_t nr = batch.num_requests();
  if (nr > kMaxRequests)
    return invalid(error, Rule::kQueryStartLocOutOfRange, kMaxRequests + 1,
                   "NR = " + str(nr) + " exceeds 2^20 requests");
  for (size_t i = 1; i < qsl.size(); ++i)
    if (qsl[i] > kMaxInt32)
      return invalid(error, Rule::kQueryStartLocOutOfRange, static_cast<int64_t>(i),
                     str(qsl[i]) + " does not fit int32");

  // 3. num_actual_tokens
  const int64_t m = batch.num_mapped_tokens();
  const int64_t n = batch.num_actual_tokens;
  if (n < m || n > kMaxTokens)
    return invalid(error, Rule::kNumActualTokensOutOfRange, -1,
                   "N = " + str(n) + " must satisfy M = " + str(m) + " <= N <= 2^24");

  // 4. seq_lens
  const auto& seq = batch.seq_lens;
  if (static_cast<int64_t>(seq.size()) != nr)
    return invalid(error, Rule::kSeqLensWrongLength, -1,
                   "has " + str(static_cast<int64_t>(seq.size())) + " entries, NR = " + str(nr));
  for (int64_t j = 0; j < nr; ++j)
    if (seq[j] < batch.query_len(j))
      return invalid(error, Rule::kSeqLensShorterThanQuery, j,
                     "e_j = " + str(seq[j]) + " < q_j = " + str(batch.query_len(j)));
  for (int64_t j = 0; j < nr; ++j)
    if (seq[j] > kMaxInt32) return invalid(error, Rule::kSeqLensOutOfRange, j, str(seq[j]) + " does not fit int32");
  return Status::kOk;
}

Status validate(const MetadataInput& input, Error* error) {
  const Batch& batch = input.batch;
  // 1. kind and its parameters, then the decode threshold.
  Status s = validate_cache_config(input.cache, batch.num_requests(), error);
  if (s != Status::kOk) return s;
  if (batch.reorder_batch_threshold < 1 || batch.reorder_batch_threshold > kMaxTokens)
    return invalid(error, Rule::kReorderBatchThresholdOutOfRange, -1,
                   "T = " + str(batch.reorder_batch_threshold) + " must be in [1, 2^24]");

  // 2-4. query_start_loc, num_actual_tokens, seq_lens.
  if ((s = validate_batch(batch, error)) != Status::kOk) return s;

  // 5. common_slot_mapping (compressed and passthrough read it).
  if (input.cache.kind != CacheKind::kRing) {
    const auto& slots = batch.common_slot_mapping;
    const int64_t n = batch.num_actual_tokens;
    if (static_cast<int64_t>(slots.size()) < n)
      return invalid(error, Rule::kCommonSlotMappingTooShort, -1,
                     "has " + str(static_cast<int64_t>(slots.size())) + " entries, N = " + str(n));
    for (int64_t t = batch.num_mapped_tokens(); t < n; ++t)
      if (slots[t] >= 0)
        return invalid(error, Rule::kCommonSlotMappingPaddingNotNegative, t,
                       "padding row " + str(t) + " has slot " + str(slots[t]));
  }

  // 6. block_table
  const BlockTable& table = input.block_table;
  if (table.rows < batch.num_requests())
    return invalid(error, Rule::kBlockTableTooFewRows, -1,
                   "has " + str(table.rows) + " rows, NR = " + str(batch.num_requests()));
  if (!table.is_well_formed())
    return invalid(error, Rule::kBlockTableMalformed, -1,
                   "strides or storage do not cover " + str(table.rows) + " x " + str(table.cols));
  return Status::kOk;
}

}  // namespace qsa
