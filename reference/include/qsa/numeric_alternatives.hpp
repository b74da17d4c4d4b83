#pragma once
// The plausible other ways a kernel rounds each step of SPEC 6: not the contract (numerics.hpp is),
// but the arithmetic a kernel author writes instead (a reciprocal multiply for a division, a
// correctly rounded rsqrt for 1/sqrt, a fused multiply-add, another reduction order, another NaN).
// One small function each. Two users: planted/ plants each as a bug (docs/planted-bugs.md,
// "Numerical alternatives"), and traces/ searches for the inputs on which each differs from the
// recipe and plants them into rows (docs/content.md, versions 4 and 5). They live in the reference, the
// one layer both may use; built with -ffp-contract=off like numerics.cpp, so only the fusions
// written here (std::fma) happen.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "qsa/numerics.hpp"

namespace qsa {

/// One alternative implementation of one SPEC 6 rounding step.
enum class NumericAlternative {
  kPoolReciprocalMultiply,   // 6.1: s * (1/C) for s / C
  kPoolPairwiseTree,         // 6.1: the members summed by a pairwise tree, not left to right
  kPoolReverseOrder,         // 6.1: the members summed from the last one down
  kSumOfSquaresSequential,   // 6.2: the squares summed left to right, not by the pairwise tree
  kSumOfSquaresHalvingTree,  // 6.2: the tree that adds element i and i + n/2 (shared-memory reduction)
  kSumOfSquaresFma,          // 6.2: the first tree level fused: fma(x_2i, x_2i, x_2i+1^2)
  kMeanReciprocalMultiply,   // 6.2: ss * (1/D) for ss / D (identical: D is a power of two)
  kRsqrtSingleRounding,      // 6.2: rrms = 1/sqrt(mean + eps) rounded once, not sqrt then divide
  kNormDividesByRms,         // 6.2: y = (x / sqrt(mean + eps)) * (1 + w): a division per element
  kNormScaleReassociated,    // 6.2: y = x * (rrms * (1 + w)): the two products reassociated
  kRopeFma,                  // 6.3: a*c - b*s and b*c + a*s with one fused multiply-add each
  kRopeProductsInBf16,       // 6.3: each product rounded to bf16 before the add
  kBf16NanCanonical,         // bf16(x): any NaN -> 0x7FC0 (the canonical quiet NaN), not 0x7FFF
};
inline constexpr int kNumNumericAlternatives = 13;

/// What the table of numeric_alternatives() says of one alternative.
struct NumericAlternativeInfo {
  NumericAlternative alternative;
  const char* name;       // "pool-reciprocal-multiply"; the planted bug is "bug:" + name
  const char* step;       // the SPEC 6 step it replaces: "6.1 pool", "6.2 sum of squares", ...
  const char* replaces;   // the recipe's operation, in the SPEC's words
  const char* instead;    // what the alternative does
  const char* identical;  // the legal inputs on which it provably equals the recipe ("" if none
                          // known); docs/planted-bugs.md gives the proofs
};

/// Every alternative, in enum order.
const std::vector<NumericAlternativeInfo>& numeric_alternatives();
const NumericAlternativeInfo& numeric_alternative_info(NumericAlternative alternative);

// --- 6.1 pool: members f(m_0) ... f(m_{C-1}) (binary32) -> bf16 -------------------------------

/// The recipe, one element: s = m_0; s = s + m_i; bf16(s / C).
Bf16 pool_element(const float* members, int64_t compress_ratio);
/// bf16(s * (1/C)), s summed as the recipe does. Equal to the recipe when C is a power of two.
Bf16 pool_reciprocal_multiply(const float* members, int64_t compress_ratio);
/// bf16(tree / C) with adjacent pairs added level by level, an odd last value carried up.
/// Equal to the recipe when C <= 3.
Bf16 pool_pairwise_tree(const float* members, int64_t compress_ratio);
/// bf16(s / C) with s = m_{C-1}; s = s + m_i for i = C-2 down to 0. Equal to the recipe when C <= 2.
Bf16 pool_reverse_order(const float* members, int64_t compress_ratio);
/// One pool alternative (kPool*) on one element; the recipe for any other alternative.
Bf16 pool_element_with(NumericAlternative alternative, const float* members, int64_t compress_ratio);

// --- 6.2 RMSNorm --------------------------------------------------------------------------------

/// Squares left to right: ((a_0 + a_1) + a_2) + ...
float sum_of_squares_sequential(const float* squares, int64_t n);
/// The halving tree: each level adds a_i + a_{i + w/2} for i < w/2 (n a power of two).
float sum_of_squares_halving_tree(const float* squares, int64_t n);
/// The recipe's pairwise tree with its first level fused: leaf pair i is fma(x_2i, x_2i, x_2i+1^2).
float sum_of_squares_fma(const Bf16* x, int64_t n);
/// mean = ss * (1/D). Equal to ss / D for every binary32 ss: D is a power of two (SPEC 0).
float mean_reciprocal_multiply(float sum_of_squares, int64_t head_dim);
/// 1/sqrt(mean + eps) correctly rounded once (in binary64, then to binary32).
float rrms_single_rounding(float sum_of_squares, int64_t head_dim, float eps);
/// (f(x) / rms) * (1 + f(w)) with rms = sqrt(mean + eps).
float norm_scale_divides(Bf16 x, float rms, Bf16 weight);
/// f(x) * (rrms * (1 + f(w))).
float norm_scale_reassociated(Bf16 x, float rrms, Bf16 weight);
/// rms_norm (SPEC 6.2) with one norm alternative (kSumOfSquares*, kMeanReciprocalMultiply,
/// kRsqrtSingleRounding, kNorm*) in place of its step; the recipe for any other alternative.
void rms_norm_with(NumericAlternative alternative, const Bf16* x, const Bf16* weight, int64_t head_dim, float eps,
                   Bf16* y);

// --- 6.3 RoPE: one pair (a, b) = (f(y_i), f(y_hp+i)) by (c, s) -> (out_i, out_hp+i) -------------

/// The recipe: bf16(a*c - b*s), bf16(b*c + a*s), each product rounded, then the add.
std::array<Bf16, 2> rope_pair(float a, float b, float c, float s);
/// bf16(fma(a, c, -(b*s))), bf16(fma(b, c, a*s)). Equal to the recipe unless a product is below
/// 2^-133 in magnitude (a product of two bf16 values is exact in binary32 above that).
std::array<Bf16, 2> rope_pair_fma(float a, float b, float c, float s);
/// Each product rounded to bf16 first: bf16(bf16(a*c) - bf16(b*s)), ...
std::array<Bf16, 2> rope_pair_products_in_bf16(float a, float b, float c, float s);
/// One RoPE alternative (kRope*) on one pair; the recipe for any other alternative.
std::array<Bf16, 2> rope_pair_with(NumericAlternative alternative, float a, float b, float c, float s);

// --- bf16(x) ---------------------------------------------------------------------------------

/// bf16(x) with any NaN -> 0x7FC0 (as PyTorch's c10::BFloat16 rounds), else the recipe.
Bf16 bf16_nan_canonical(float x);

}  // namespace qsa
