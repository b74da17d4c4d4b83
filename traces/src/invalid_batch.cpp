#include "qsa/traces/invalid_batch.hpp"

#include "qsa/validate.hpp"

namespace qsa::traces {
namespace {

// Breaks one rule where the batch has what the rule needs; false when it has not.
bool corrupt(Rng& rng, int rule, MetadataInput* in) {
  Batch& b = in->batch;
  const int64_t nr = b.num_requests();
  switch (rule) {
    case 0: {  // seq_lens / shorter-than-query at a request with rows
      const int64_t j = rng.range(0, nr - 1);
      if (b.query_len(j) == 0) return false;
      b.seq_lens[static_cast<size_t>(j)] = b.query_len(j) - 1;
      return true;
    }
    case 1: {  // query_start_loc / decreasing
      if (nr < 2) return false;
      const int64_t i = rng.range(2, nr);
      b.query_start_loc[static_cast<size_t>(i)] = b.query_start_loc[static_cast<size_t>(i - 1)] - 1;
      return true;
    }
    case 2: {  // common_slot_mapping / padding-not-negative on a padding row
      const int64_t m = b.num_mapped_tokens();
      if (b.num_actual_tokens <= m) return false;
      b.common_slot_mapping[static_cast<size_t>(rng.range(m, b.num_actual_tokens - 1))] = 7;
      return true;
    }
    case 3:  // num_actual_tokens / out-of-range: fewer rows than the requests map
      if (b.num_mapped_tokens() == 0) return false;
      b.num_actual_tokens = b.num_mapped_tokens() - 1;
      return true;
    default:  // query_start_loc / nonzero-start
      b.query_start_loc[0] = 1;
      return true;
  }
}

}  // namespace

GeneratedBatch random_invalid_metadata_input(Rng& rng) {
  GeneratedBatch batch = random_metadata_input(rng, std::nullopt, 512);
  Error error;
  if (!corrupt(rng, static_cast<int>(rng.below(5)), &batch.input) || validate(batch.input, &error) == Status::kOk)
    corrupt(rng, 4, &batch.input);
  return batch;
}

}  // namespace qsa::traces
