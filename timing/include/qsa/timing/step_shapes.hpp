#pragma once
// The step-update benchmark shapes with the real configuration (D = 128, HQ = 4, rd = 64, C = 4,
// MRoPE with positions cached in the ring, bf16 or fp8) and synthetic inputs for them, plus the
// bytes one step must move. Host code.

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/status.hpp"
#include "qsa/step_types.hpp"

namespace qsa::timing {

struct StepShape {
  std::string name;      // "decode", "mixed" or "prefill"
  int64_t tokens = 0;    // N
  int64_t requests = 0;  // NR
  StoreDtype dtype = StoreDtype::kBf16;
};

/// decode 64/256/1024 requests x 4 rows, mixed N = 8192 with NR = 1024, prefill 2/4/16 x 4096; both dtypes.
std::vector<StepShape> step_shapes();

/// The shape set named on a command line: "standard" (step_shapes()), "quick" (decode 1024 x 4 and
/// prefill 4 x 4096, bf16), or a comma-separated list of FAMILY:N:NR[:DTYPE] (decode: N = 4 NR;
/// mixed: NR - 4 decodes of 4 rows, then 4 prefills sharing the rest equally; prefill: NR chunks
/// of N / NR rows from position 0, at most 8190 each; DTYPE bf16 (default) or fp8).
/// kInvalidInput naming field "shapes", the entry's index and the rule broken.
[[nodiscard]] Status parse_step_shapes(const std::string& text, std::vector<StepShape>* shapes, Error* error);

/// The name of a step shape in benchmark names: "shape:decode/tokens:1024/requests:256/dtype:bf16".
std::string shape_suffix(const StepShape& shape);

/// Input sets for one launch of `bytes`: enough that a graph cycling through them streams four
/// times the 60 MB L2 of an H100/H200 (at least 2, at most 256).
int64_t sets_streaming_past_l2(int64_t bytes);

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

}  // namespace qsa::timing
