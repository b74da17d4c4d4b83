#pragma once
// The canonical arithmetic of SPEC 6 with the numeric bugs planted. Each function delegates to the
// reference numerics (qsa/numerics.hpp) unless `bug` changes it, so only the planted bug differs.
// Built with -ffp-contract=off like the reference: the FMA bug uses std::fma explicitly.

#include <array>
#include <cstdint>

#include "qsa/numerics.hpp"
#include "qsa/planted/catalog.hpp"

namespace qsa::planted {

/// qsa::mrope_axis; kWrongMropeAxis swaps h and w.
int mrope_axis(Bug bug, int64_t pair, const MropeSections& sections);

/// qsa::rope_neox; kWrongMropeAxis, kFmaContraction, kRopeFma, kRopeProductsInBf16, kRopeInterleavedPairs
/// change it. kRopeSignSlip too, and the rounding bugs (kBf16RoundHalfAway, kBf16Truncation,
/// kFlushSubnormals, kBf16NanCanonical) in every operation and bf16 rounding. Arithmetic::kUpstreamLike rounds each product to bf16 before the add.
void rope_neox(Bug bug, Bf16* y, int64_t head_dim, int64_t rotary_dim, const std::array<int64_t, 3>& positions,
               const MropeSections& sections, const Bf16* cos_sin, Arithmetic arithmetic = Arithmetic::kCanonical);

/// qsa::rms_norm; kFmaContraction, kSumOfSquaresSequential, kNormWeightWithoutOne, the rounding
/// bugs and the norm alternatives (kSumOfSquaresHalvingTree, kSumOfSquaresFma, kRsqrtSingleRounding,
/// kNormDividesByRms, kNormScaleReassociated: qsa::rms_norm_with) change it.
/// Arithmetic::kUpstreamLike uses an approximate reciprocal square root.
void rms_norm(Bug bug, const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, Bf16* y,
              Arithmetic arithmetic = Arithmetic::kCanonical);

/// qsa::pool_group; kPoolAccumulatesInBf16, the rounding bugs and the pool alternatives
/// (kPoolReciprocalMultiply, kPoolPairwiseTree, kPoolReverseOrder: qsa::pool_element_with) change it.
/// Arithmetic::kUpstreamLike sums the members by a pairwise tree instead of left to right.
void pool_group(Bug bug, const Bf16* const* members, int64_t compress_ratio, int64_t head_dim, Bf16* out,
                Arithmetic arithmetic = Arithmetic::kCanonical);

/// qsa::e4m3_from_bf16; kFp8NoSaturation and kE4m3Truncation change it.
Fp8 e4m3_from_bf16(Bug bug, Bf16 x);

}  // namespace qsa::planted
