#pragma once
// The step shapes the metadata benchmarks time: decode-heavy (rows of 1 + 3 drafts), mixed
// (decodes then prefill chunks), long prefill. Inputs are random but valid, with realistic
// parameters (C = 4, S = 16, R = 8, block ids spread over 2^20 blocks).

#include <cstdint>
#include <string>
#include <vector>

#include "qsa/types.hpp"

namespace qsa::timing {

struct MetadataShape {
  std::string family;  // "decode", "mixed", "prefill"
  int64_t tokens;      // N (= M: vLLM pads to a graph size, the benchmark does not)
  int64_t requests;    // NR
};

/// decode N = 256, 1024, 4096 (NR = N / 4); mixed N = 8192, NR = 1024; prefill N = 8192,
/// 16 384, 65 536 (chunks of 4096 rows).
std::vector<MetadataShape> metadata_bench_shapes();

/// A valid input of this shape and kind, deterministic in `seed`.
MetadataInput make_shape_input(const MetadataShape& shape, CacheKind kind, uint64_t seed);

}  // namespace qsa::timing
