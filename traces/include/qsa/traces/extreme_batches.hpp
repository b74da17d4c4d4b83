#pragma once
// The metadata batches at the far ends of SPEC 1.3 that random draws cannot afford:
// N = 2^24 rows (one request of 2^24 or 2^24 - 1 rows, all padding, one row and 2^24 - 1 padding
// rows), NR = 2^20 and 2^20 - 1 requests, T, request_capacity and ring_capacity at their limits,
// common slots at the int64 limits, a chunk start of 2^31 - 1 (a zero-length request whose context
// fills int32), block ids at the int32 limits. Built from the limits, not drawn: the campaign runs
// each once, after its scenarios. The outputs of a large one take 384 MiB (24 bytes a row),
// so they are built one at a time, and only one of them carries common slots (128 MiB more).

#include <cstdint>

#include "qsa/types.hpp"

namespace qsa::traces {

struct ExtremeBatch {
  MetadataInput input;  // valid: passes qsa::validate()
  const char* name;     // what is extreme about it, for reports ("tokens-2^24-one-request")
};

inline constexpr int64_t kNumExtremeBatches = 7;

/// Extreme batch `index` (0 <= index < kNumExtremeBatches).
ExtremeBatch extreme_metadata_batch(int64_t index);

}  // namespace qsa::traces
