#pragma once
// The one generator of valid metadata inputs (SPEC 1), written against traces::Choice so that the
// campaign (Rng), the property suite (RapidCheck, shrinking) and the fuzzer (FuzzedDataProvider)
// draw the same shapes. Every range leans toward its bounds (lo, lo + 1, hi - 1, hi), and the
// shapes reach the classes kernels get wrong: one request, one token, all padding, zero-length
// requests first, inside and at the tail, N much larger than M, more requests than the serving
// default of 1024, compress ratios that are not powers of two, block ids and positions near the
// int32 limit with large storage blocks (slots beyond int32), negative common slots on real rows,
// block tables with -1 entries, missing columns, extra rows, column-major or strided storage.

#include <cstdint>
#include <optional>

#include "qsa/traces/choice.hpp"
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
  kZeroLengthFirst,  // one or more zero-length requests before the first real one
  kManyRequests,     // more requests than 1024 (kernel capacity thresholds)
  kInt32Limits,      // block ids and positions near INT32_MAX, large S: slots beyond int32
};
inline constexpr int kNumBatchShapes = 11;
const char* to_string(BatchShape shape);

struct GeneratedBatch {
  MetadataInput input;
  BatchShape shape;
};

struct EdgeBatchOptions {
  std::optional<CacheKind> kind;  // empty: any kind
  int64_t max_tokens = 4096;      // bounds M (rows with a request); kManyRequests pads past it
  int64_t max_table_cols = 4096;  // bounds the block table's width
};

/// One valid input (it always passes qsa::validate()).
GeneratedBatch edge_metadata_batch(Choice& choice, const EdgeBatchOptions& options = {});

}  // namespace qsa::traces
