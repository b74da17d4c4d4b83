#include "qsa/traces/invalid_batch.hpp"

#include <utility>
#include <vector>

#include "qsa/input_fields.hpp"
#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

// Breaks `rule` where the batch has what the rule needs, touching nothing an earlier rule checks;
// false (and the input unchanged) when it has not.
bool corrupt(Choice& rng, Rule rule, MetadataInput* in) {
  Batch& b = in->batch;
  CacheKindConfig& cache = in->cache;
  const int64_t nr = b.num_requests();
  const bool compressed = cache.kind == CacheKind::kCompressed;
  switch (rule) {
    case Rule::kCompressRatioOutOfRange:  // below or above the kind's range (passthrough: anything but 1)
      if (cache.kind == CacheKind::kPassthrough)
        cache.compress_ratio = rng.chance(1, 2) ? 2 : 0;
      else
        cache.compress_ratio = rng.chance(1, 2) ? (compressed ? 1 : 0) : kMaxCompressRatio + 1;
      return true;
    case Rule::kStorageBlockSizeOutOfRange:
      if (!compressed) return false;
      cache.storage_block_size = rng.chance(1, 2) ? 0 : kMaxStorageBlockSize + 1;
      return true;
    case Rule::kRingCapacityOutOfRange:
      if (cache.kind != CacheKind::kRing) return false;
      cache.ring_capacity = rng.chance(1, 2) ? 0 : kMaxRingCapacity + 1;
      return true;
    case Rule::kRequestCapacityOutOfRange:  // fewer than the batch's requests, or past 2^20
      if (!compressed) return false;
      cache.request_capacity = rng.chance(1, 2) ? nr - 1 : kMaxRequests + 1;
      return true;
    case Rule::kReorderBatchThresholdOutOfRange:
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
    case Rule::kNumActualTokensOutOfRange:  // fewer rows than the requests map, or more than 2^24
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
    default:  // not a field rule a valid generated batch can break (RuleInfo::breakable)
      break;
  }
  return false;
}

}  // namespace

bool break_rule(Choice& choice, int rule, MetadataInput* input) {
  MetadataInput corrupted = *input;
  Error error;
  if (rule < 0 || rule >= kNumBreakableRules || !corrupt(choice, breakable_rule(rule), &corrupted) ||
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

namespace {

// The step rules one field of a valid step input can break; `applies` false where the input
// lacks what the rule needs (a request with rows, a padding row, a position).
bool step_rule_applies(Rule rule, const StepInput& in) {
  const Batch& b = in.batch;
  switch (rule) {
    case Rule::kQueryStartLocNonzeroStart:
    case Rule::kHeadDimOutOfRange:
    case Rule::kNumHeadsOutOfRange:
    case Rule::kEpsOutOfRange:
    case Rule::kKeysWrongShape:
    case Rule::kQueriesWrongShape:
    case Rule::kWKWrongShape:
      return true;
    case Rule::kSeqLensShorterThanQuery:
      return b.num_mapped_tokens() > 0;
    case Rule::kCommonSlotMappingPaddingNotNegative:
      return b.num_actual_tokens > b.num_mapped_tokens();
    case Rule::kPositionsOutOfRange:
      return !in.positions.empty();
    default:
      return false;
  }
}

// Breaks `rule` (one that applies) so that it is the first failure validate_step() finds.
void corrupt_step(Rule rule, StepInput* in) {
  Batch& b = in->batch;
  switch (rule) {
    case Rule::kQueryStartLocNonzeroStart:
      b.query_start_loc[0] = 1;
      break;
    case Rule::kSeqLensShorterThanQuery:
      for (int64_t j = 0; j < b.num_requests(); ++j)
        if (b.query_len(j) > 0) {
          b.seq_lens[static_cast<size_t>(j)] = b.query_len(j) - 1;
          break;
        }
      break;
    case Rule::kCommonSlotMappingPaddingNotNegative:
      b.common_slot_mapping[static_cast<size_t>(b.num_mapped_tokens())] = 0;
      break;
    case Rule::kHeadDimOutOfRange:
      in->config.head_dim += 1;
      break;
    case Rule::kNumHeadsOutOfRange:
      in->config.num_heads = 0;
      break;
    case Rule::kEpsOutOfRange:
      in->config.eps = 0.0f;
      break;
    case Rule::kKeysWrongShape:
      in->keys.push_back(0);
      break;
    case Rule::kQueriesWrongShape:
      in->queries.push_back(0);
      break;
    case Rule::kWKWrongShape:
      in->config.w_k.push_back(0);
      break;
    case Rule::kPositionsOutOfRange:
      in->positions[0] = in->config.max_position;
      break;
    default:
      break;
  }
}

}  // namespace

Rule break_step_rule(uint64_t pick, StepInput* input) {
  std::vector<Rule> rules;
  for (const RuleInfo& row : kRuleTable)
    if (step_rule_applies(row.which, *input)) rules.push_back(row.which);
  if (rules.empty()) return Rule::kCount;
  const Rule rule = rules[pick % rules.size()];
  corrupt_step(rule, input);
  return rule;
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
