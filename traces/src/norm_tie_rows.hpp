#pragma once
// Rows that separate the RMSNorm alternatives whose difference from SPEC 6.2 is an ulp of a
// binary32 result (the halving-tree and the fused sum of squares, a division by rms, the
// reassociated scale): built, not drawn (docs/content.md "Numerical alternatives"). Private to
// traces/.

#include <cstdint>
#include <vector>

#include "qsa/numeric_alternatives.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa::traces {

/// What the norm of a query row depends on.
struct NormSetting {
  int64_t head_dim = 0;    // D, a power of two
  int64_t rotary_dim = 0;  // rd: the planted element lies in [rd, D), where RoPE passes it through
  float eps = 0;
  const Bf16* weight = nullptr;  // w_q, D elements
};

/// Up to `wanted` rows of D elements on which `alternative` (kSumOfSquaresHalvingTree,
/// kSumOfSquaresFma, kNormDividesByRms or kNormScaleReassociated) gives another bf16 result than
/// rms_norm at a pass-through element, each verified with both functions; fewer (none) when the
/// setting leaves no such element or the bounded search runs out. kSumOfSquaresFma needs D = 32 and
/// an eps below about 2^-126 (SPEC 1.4 allows any finite eps > 0).
std::vector<std::vector<Bf16>> norm_tie_rows(NumericAlternative alternative, const NormSetting& setting, Rng* rng,
                                             size_t wanted);

}  // namespace qsa::traces
