// SPEC 6 with the numeric bugs planted. Built with -ffp-contract=off (properties/CMakeLists.txt):
// the unmutated paths must round exactly as the reference does.

#include "mutant_numerics.hpp"

#include <cmath>
#include <vector>

namespace qsa::mutants {
namespace {

float f(Bf16 x) { return float_from_bf16(x); }

// The leaves of the pairwise tree, each square rounded; with FMA the first level fuses one square.
std::vector<float> first_tree_level(Bug bug, const Bf16* x, int64_t head_dim) {
  std::vector<float> level(static_cast<size_t>(head_dim));
  for (int64_t d = 0; d < head_dim; ++d) level[d] = f(x[d]) * f(x[d]);
  if (bug != Bug::kFmaContraction) return level;
  std::vector<float> fused(static_cast<size_t>(head_dim / 2));
  for (int64_t i = 0; i < head_dim / 2; ++i) fused[i] = std::fma(f(x[2 * i]), f(x[2 * i]), level[2 * i + 1]);
  return fused;
}

float sum_of_squares(Bug bug, const Bf16* x, int64_t head_dim) {
  const std::vector<float> leaves = first_tree_level(bug, x, head_dim);
  if (bug != Bug::kSumOfSquaresSequential) return pairwise_sum(leaves.data(), static_cast<int64_t>(leaves.size()));
  float ss = 0.0f;
  for (float v : leaves) ss = ss + v;
  return ss;
}

// One rotary pair (a, b) by (c, s): (a·c - b·s, b·c + a·s), each product rounded unless fused.
std::array<Bf16, 2> rotate(Bug bug, float a, float b, float c, float s) {
  if (bug == Bug::kFmaContraction)
    return {bf16_from_float(std::fma(a, c, -(b * s))), bf16_from_float(std::fma(b, c, a * s))};
  const float ac = a * c;
  const float bs = b * s;
  const float bc = b * c;
  const float as = a * s;
  return {bf16_from_float(ac - bs), bf16_from_float(bc + as)};
}

}  // namespace

int mrope_axis(Bug bug, int64_t pair, const MropeSections& sections) {
  const int axis = qsa::mrope_axis(pair, sections);
  if (bug != Bug::kWrongMropeAxis || axis == 0) return axis;
  return axis == 1 ? 2 : 1;
}

void rope_neox(Bug bug, Bf16* y, int64_t head_dim, int64_t rotary_dim, const std::array<int64_t, 3>& positions,
               const MropeSections& sections, const Bf16* cos_sin) {
  if (bug != Bug::kWrongMropeAxis && bug != Bug::kFmaContraction && bug != Bug::kRopeInterleavedPairs) {
    qsa::rope_neox(y, head_dim, rotary_dim, positions, sections, cos_sin);
    return;
  }
  const int64_t hp = rotary_dim / 2;
  for (int64_t i = 0; i < hp; ++i) {
    const Bf16* row = cos_sin + positions[mrope_axis(bug, i, sections)] * rotary_dim;
    // NeoX pairs element i with hp + i; GPT-J pairs adjacent elements.
    const int64_t first = bug == Bug::kRopeInterleavedPairs ? 2 * i : i;
    const int64_t second = bug == Bug::kRopeInterleavedPairs ? 2 * i + 1 : hp + i;
    const std::array<Bf16, 2> out = rotate(bug, f(y[first]), f(y[second]), f(row[i]), f(row[hp + i]));
    y[first] = out[0];
    y[second] = out[1];
  }
}

void rms_norm(Bug bug, const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, Bf16* y) {
  if (bug != Bug::kFmaContraction && bug != Bug::kSumOfSquaresSequential && bug != Bug::kNormWeightWithoutOne) {
    qsa::rms_norm(x, weight, head_dim, eps, y);
    return;
  }
  const float mean = sum_of_squares(bug, x, head_dim) / static_cast<float>(head_dim);
  const float rrms = 1.0f / std::sqrt(mean + eps);
  for (int64_t d = 0; d < head_dim; ++d) {
    const float gain = bug == Bug::kNormWeightWithoutOne ? f(weight[d]) : 1.0f + f(weight[d]);
    y[d] = bf16_from_float((f(x[d]) * rrms) * gain);
  }
}

void pool_group(Bug bug, const Bf16* const* members, int64_t compress_ratio, int64_t head_dim, Bf16* out) {
  if (bug != Bug::kPoolAccumulatesInBf16) {
    qsa::pool_group(members, compress_ratio, head_dim, out);
    return;
  }
  for (int64_t d = 0; d < head_dim; ++d) {
    Bf16 s = members[0][d];
    for (int64_t i = 1; i < compress_ratio; ++i) s = bf16_from_float(f(s) + f(members[i][d]));
    out[d] = bf16_from_float(f(s) / static_cast<float>(compress_ratio));
  }
}

Fp8 e4m3_from_bf16(Bug bug, Bf16 x) {
  const float v = f(x);
  // A plain round-to-nearest-even cast has no value above 448: from the midpoint 464 up it is NaN.
  if (bug == Bug::kFp8NoSaturation && !std::isnan(v) && std::fabs(v) > 464.0f)
    return static_cast<Fp8>((x & 0x8000u) != 0 ? 0xFF : 0x7F);
  return qsa::e4m3_from_bf16(x);
}

}  // namespace qsa::mutants
