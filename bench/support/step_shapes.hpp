#pragma once
// The step-update benchmark shapes with the real configuration (D = 128, HQ = 4, rd = 64, C = 4,
// MRoPE with positions cached in the ring, bf16 or fp8) and synthetic inputs for them, plus the
// bytes one step must move. Host code.

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/step_types.hpp"

namespace qsa::bench {

struct StepShape {
  std::string name;      // "decode", "mixed" or "prefill"
  int64_t tokens = 0;    // N
  int64_t requests = 0;  // NR
  StoreDtype dtype = StoreDtype::kBf16;
};

/// decode 64/256/1024 requests x 4 rows, mixed N = 8192 with NR = 1024, prefill 2/4/16 x 4096; both dtypes.
std::vector<StepShape> step_shapes();

struct StepCase {
  StepInput input;
  StepCaches caches;
};

/// A valid step of the shape: decodes (1 + 3 drafts) at random positions that have wrapped the ring,
/// prefill chunks from position 0, distinct blocks per request, random keys and queries.
StepCase make_step_case(const StepShape& shape, uint64_t seed);

/// The bytes the step must move through device memory: q in and out, k in (each row once), ring
/// and compressed writes, ring reads (members and position tails of the open groups).
int64_t step_bytes(const StepInput& input);

}  // namespace qsa::bench
