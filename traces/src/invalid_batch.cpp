#include "qsa/traces/invalid_batch.hpp"

#include <utility>

#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

// The rules of SPEC 1.4, one corruption each (in validate()'s order).
enum class Rule {
  kCompressRatio,
  kStorageBlockSize,
  kRingCapacity,
  kRequestCapacity,
  kReorderBatchThreshold,
  kQueryStartLocTooShort,
  kQueryStartLocNonzeroStart,
  kQueryStartLocDecreasing,
  kQueryStartLocOutOfRange,
  kNumActualTokens,
  kSeqLensWrongLength,
  kSeqLensShorterThanQuery,
  kSeqLensOutOfRange,
  kCommonSlotMappingTooShort,
  kCommonSlotMappingPaddingNotNegative,
  kBlockTableTooFewRows,
  kCount
};

// Breaks `rule` where the batch has what the rule needs, touching nothing an earlier rule checks;
// false (and the input unchanged) when it has not.
bool corrupt(Choice& rng, Rule rule, MetadataInput* in) {
  Batch& b = in->batch;
  CacheKindConfig& cache = in->cache;
  const int64_t nr = b.num_requests();
  const bool compressed = cache.kind == CacheKind::kCompressed;
  switch (rule) {
    case Rule::kCompressRatio:  // below or above the kind's range (passthrough: anything but 1)
      if (cache.kind == CacheKind::kPassthrough)
        cache.compress_ratio = rng.chance(1, 2) ? 2 : 0;
      else
        cache.compress_ratio = rng.chance(1, 2) ? (compressed ? 1 : 0) : kMaxCompressRatio + 1;
      return true;
    case Rule::kStorageBlockSize:
      if (!compressed) return false;
      cache.storage_block_size = rng.chance(1, 2) ? 0 : kMaxStorageBlockSize + 1;
      return true;
    case Rule::kRingCapacity:
      if (cache.kind != CacheKind::kRing) return false;
      cache.ring_capacity = rng.chance(1, 2) ? 0 : kMaxRingCapacity + 1;
      return true;
    case Rule::kRequestCapacity:  // fewer than the batch's requests, or past 2^20
      if (!compressed) return false;
      cache.request_capacity = rng.chance(1, 2) ? nr - 1 : kMaxRequests + 1;
      return true;
    case Rule::kReorderBatchThreshold:
      b.reorder_batch_threshold = rng.chance(1, 2) ? 0 : kMaxTokens + 1;
      return true;
    case Rule::kQueryStartLocTooShort:
      b.query_start_loc.resize(static_cast<size_t>(rng.range(0, 1)), 0);
      return true;
    case Rule::kQueryStartLocNonzeroStart:
      b.query_start_loc[0] = 1;
      return true;
    case Rule::kQueryStartLocDecreasing: {
      if (nr < 2) return false;
      const int64_t i = rng.range(2, nr);
      b.query_start_loc[static_cast<size_t>(i)] = b.query_start_loc[static_cast<size_t>(i - 1)] - 1;
      return true;
    }
    case Rule::kQueryStartLocOutOfRange:  // the last offset past int32 (still non-decreasing)
      b.query_start_loc.back() = kMaxInt32 + 1 + rng.range(0, 3);
      return true;
    case Rule::kNumActualTokens:  // fewer rows than the requests map, or more than 2^24
      if (rng.chance(1, 2)) {
        b.num_actual_tokens = kMaxTokens + 1;
        return true;
      }
      if (b.num_mapped_tokens() == 0) return false;
      b.num_actual_tokens = b.num_mapped_tokens() - 1;
      return true;
    case Rule::kSeqLensWrongLength:
      if (rng.chance(1, 2) || nr == 0)
        b.seq_lens.push_back(0);
      else
        b.seq_lens.pop_back();
      return true;
    case Rule::kSeqLensShorterThanQuery: {  // at a request with rows
      const int64_t j = rng.range(0, nr - 1);
      if (b.query_len(j) == 0) return false;
      b.seq_lens[static_cast<size_t>(j)] = b.query_len(j) - 1;
      return true;
    }
    case Rule::kSeqLensOutOfRange:  // past int32, still >= its query length
      b.seq_lens[static_cast<size_t>(rng.range(0, nr - 1))] = kMaxInt32 + 1 + rng.range(0, 3);
      return true;
    case Rule::kCommonSlotMappingTooShort:  // the ring kind does not read it
      if (cache.kind == CacheKind::kRing || b.num_actual_tokens == 0) return false;
      b.common_slot_mapping.resize(static_cast<size_t>(rng.range(0, b.num_actual_tokens - 1)));
      return true;
    case Rule::kCommonSlotMappingPaddingNotNegative: {  // on a padding row
      const int64_t m = b.num_mapped_tokens();
      if (cache.kind == CacheKind::kRing || b.num_actual_tokens <= m) return false;
      b.common_slot_mapping[static_cast<size_t>(rng.range(m, b.num_actual_tokens - 1))] = 7;
      return true;
    }
    case Rule::kBlockTableTooFewRows:
      in->block_table.rows = rng.range(0, nr - 1);
      return true;
    case Rule::kCount:
      break;
  }
  return false;
}

static_assert(static_cast<int>(Rule::kCount) == kNumBreakableRules);

}  // namespace

bool break_rule(Choice& choice, int rule, MetadataInput* input) {
  MetadataInput corrupted = *input;
  Error error;
  if (rule < 0 || rule >= kNumBreakableRules || !corrupt(choice, static_cast<Rule>(rule), &corrupted) ||
      validate(corrupted, &error) == Status::kOk)
    return false;
  *input = std::move(corrupted);
  return true;
}

bool break_one_rule(Choice& choice, MetadataInput* input) {
  // A drawn rule the input cannot break (a ring batch has no storage_block_size) gives way to the
  // next one in order; nonzero-start breaks every input.
  constexpr int kRules = kNumBreakableRules;
  const int first = static_cast<int>(choice.range(0, kRules - 1));
  for (int k = 0; k < kRules; ++k)
    if (break_rule(choice, (first + k) % kRules, input)) return true;
  corrupt(choice, Rule::kQueryStartLocNonzeroStart, input);
  Error error;
  return validate(*input, &error) != Status::kOk;
}

GeneratedBatch random_invalid_metadata_input(Rng& rng, std::optional<int> rule) {
  RngChoice choice(rng);
  // Fresh valid batches until one has what the rule needs (only a compressed batch has a
  // request_capacity): a campaign that cycles the rules breaks every one of them.
  for (int attempt = 0; rule && attempt < 16; ++attempt) {
    GeneratedBatch batch = random_metadata_input(rng, std::nullopt, 512);
    if (break_rule(choice, *rule, &batch.input)) return batch;
  }
  GeneratedBatch batch = random_metadata_input(rng, std::nullopt, 512);
  break_one_rule(choice, &batch.input);
  return batch;
}

}  // namespace qsa::traces
