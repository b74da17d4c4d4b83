#pragma once
// Random valid metadata inputs biased toward the edge shapes of SPEC 2 (one request, all padding,
// zero-length requests, missing block-table columns, negative entries, N much larger than M,
// negative common slots on real rows, strided block tables). Used by `qsacheck check`, the fuzz
// seeds and the benchmarks; the property suite has its own shrinking RapidCheck generators.

#include <cstdint>
#include <string>

#include "qsa/traces/rng.hpp"
#include "qsa/types.hpp"

namespace qsa::traces {

/// The shape family a generated batch was drawn from (reported as coverage).
enum class BatchShape {
  kSingleToken,
  kAllPadding,
  kUniformDecode,     // NR decodes of 1 + k rows, padded requests at the tail, maybe token padding
  kMixed,             // decodes first, then prefill chunks
  kZeroLengthInside,  // zero-length requests between real ones
  kLongPrefill,
  kTokenPadding,  // N much larger than M
  kRandom,
};
inline constexpr int kNumBatchShapes = 8;
const char* to_string(BatchShape shape);

struct GeneratedBatch {
  MetadataInput input;
  BatchShape shape;
};

/// Draws one valid input of the given kind (or a random kind when `kind` is empty).
/// `max_tokens` bounds M (rows with a request). Always passes qsa::validate().
GeneratedBatch random_metadata_input(Rng& rng, std::optional<CacheKind> kind = std::nullopt, int64_t max_tokens = 4096);

}  // namespace qsa::traces
