#pragma once
// The canonical arithmetic of SPEC 6, one function per rule. IEEE binary32 with round-to-nearest
// -even, no FMA (this library is built with -ffp-contract=off), no excess precision. bf16 values
// travel as their 16-bit patterns and fp8 e4m3fn values as 8-bit patterns, so nothing is lost.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace qsa {

using Bf16 = uint16_t;  // bf16 bit pattern
using Fp8 = uint8_t;    // fp8 e4m3fn bit pattern

/// bf16(x): binary32 -> bf16 by round-to-nearest-even; any NaN -> 0x7FFF; infinities kept;
/// subnormals rounded like any other value. Example: 1.00390625f (halfway) -> 0x3F80 (even).
Bf16 bf16_from_float(float x);

/// f(x): bf16 -> binary32, exact.
float float_from_bf16(Bf16 x);

/// bf16 -> fp8 e4m3fn by round-to-nearest-even with saturation: finite values beyond +-448 and
/// infinities -> +-448 (0x7E / 0xFE), NaN -> 0x7F (CUDA's __NV_SATFINITE behaviour).
Fp8 e4m3_from_bf16(Bf16 x);

/// The binary32 value of an e4m3fn pattern (NaN for 0x7F / 0xFF).
float float_from_e4m3(Fp8 x);

/// Sum of `n` values (n a power of two) by the pairwise tree in index order: each level adds
/// adjacent pairs (a0+a1), (a2+a3), ... until one value remains (SPEC 6.2).
float pairwise_sum(const float* values, int64_t n);

/// Gemma RMSNorm (SPEC 6.2): y_d = bf16((f(x_d) * rrms) * (1 + f(w_d))) with
/// rrms = 1 / sqrt(ss / D + eps) and ss the pairwise-tree sum of the rounded squares.
void rms_norm(const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, Bf16* y);

/// The parts of rms_norm, for content that aims at its rounding boundaries (traces/content.hpp):
/// rrms = 1 / sqrt(sum_of_squares / D + eps), correctly rounded sqrt, then the divide.
float rms_norm_rrms(float sum_of_squares, int64_t head_dim, float eps);
/// (f(x) * rrms) * (1 + f(w)) in binary32: element d of rms_norm before its bf16 rounding.
float rms_norm_scale(Bf16 x, float rrms, Bf16 weight);
/// rms_norm's D binary32 values before the bf16 rounding: y[d] = rms_norm_scale(x[d], rrms, w[d]).
/// rms_norm(x) == bf16_from_float of these, element by element.
void rms_norm_binary32(const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, float* y);

/// MRoPE sections (sec_t, sec_h, sec_w) summing to rd / 2; absent means every pair uses axis t.
using MropeSections = std::optional<std::array<int64_t, 3>>;

/// The axis (0 = t, 1 = h, 2 = w) that rotary pair i reads its position from (SPEC 6.3):
/// h if i mod 3 = 1 and i < 3*sec_h, w if i mod 3 = 2 and i < 3*sec_w, else t.
int mrope_axis(int64_t pair, const MropeSections& sections);

/// NeoX RoPE with partial rotary dim (SPEC 6.3), in place on a bf16 row of head_dim elements.
/// `positions` holds (t, h, w); `cos_sin` is the [max_position, rd] table; each position must be
/// in [0, max_position) (validated by the caller). Elements [rd, D) pass through.
void rope_neox(Bf16* y, int64_t head_dim, int64_t rotary_dim, const std::array<int64_t, 3>& positions,
               const MropeSections& sections, const Bf16* cos_sin);

/// Group pooling (SPEC 6.1): s = f(m_0); s = s + f(m_i) for i = 1..C-1; out = bf16(s / C).
/// `members[i]` points at member i's D key elements.
void pool_group(const Bf16* const* members, int64_t compress_ratio, int64_t head_dim, Bf16* out);

/// A RoPE table for tests and the CLI: row p holds cos(p * theta_i) for i < rd/2, then
/// sin(p * theta_i), with theta_i = base^(-2i/rd), computed in double and rounded to bf16.
std::vector<Bf16> make_cos_sin_table(double base, int64_t rotary_dim, int64_t max_position);

}  // namespace qsa
