// SPEC 6 with the numeric bugs planted. Built with -ffp-contract=off (properties/CMakeLists.txt):
// the unmutated paths must round exactly as the reference does.

#include "cpu_numerics.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "qsa/numeric_alternatives.hpp"

namespace qsa::planted {
namespace {

float f(Bf16 x) { return float_from_bf16(x); }

// The rounding bugs: each changes every bf16 rounding (and, flushing, every operation) of the step.
bool rounding_bug(Bug bug) {
  return bug == Bug::kBf16RoundHalfAway || bug == Bug::kBf16Truncation || bug == Bug::kFlushSubnormals ||
         bug == Bug::kBf16NanCanonical;
}

// The numerical alternative a bug plants in one step (qsa/numeric_alternatives.hpp), if any.
std::optional<NumericAlternative> alternative_of(Bug bug) {
  using A = NumericAlternative;
  switch (bug) {
    case Bug::kPoolReciprocalMultiply:
      return A::kPoolReciprocalMultiply;
    case Bug::kPoolPairwiseTree:
      return A::kPoolPairwiseTree;
    case Bug::kPoolReverseOrder:
      return A::kPoolReverseOrder;
    case Bug::kSumOfSquaresHalvingTree:
      return A::kSumOfSquaresHalvingTree;
    case Bug::kSumOfSquaresFma:
      return A::kSumOfSquaresFma;
    case Bug::kRsqrtSingleRounding:
      return A::kRsqrtSingleRounding;
    case Bug::kNormDividesByRms:
      return A::kNormDividesByRms;
    case Bug::kNormScaleReassociated:
      return A::kNormScaleReassociated;
    case Bug::kRopeProductsInBf16:
      return A::kRopeProductsInBf16;
    default:
      return std::nullopt;
  }
}

// A subnormal binary32 value flushed to a zero of its sign (kFlushSubnormals: FTZ on results).
float flush(Bug bug, float x) {
  if (bug == Bug::kFlushSubnormals && std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(0.0f, x);
  return x;
}

// f(x) as the bug reads it (kFlushSubnormals: DAZ on inputs).
float in(Bug bug, Bf16 x) { return flush(bug, f(x)); }

// bf16(x) as the bug rounds it.
Bf16 to_bf16(Bug bug, float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  switch (bug) {
    case Bug::kBf16RoundHalfAway:  // add half an ulp and truncate: a tie goes away from zero
      return std::isnan(x) ? Bf16{0x7FFF} : static_cast<Bf16>((bits + 0x8000u) >> 16);
    case Bug::kBf16Truncation:
      return static_cast<Bf16>(bits >> 16);
    case Bug::kBf16NanCanonical:
      return bf16_nan_canonical(x);
    case Bug::kFlushSubnormals: {
      const Bf16 y = bf16_from_float(flush(bug, x));
      return (y & 0x7F80u) == 0 ? static_cast<Bf16>(y & 0x8000u) : y;  // a subnormal bf16 result too
    }
    default:
      return bf16_from_float(x);
  }
}

// The leaves of the pairwise tree, each square rounded; with FMA the first level fuses one square.
std::vector<float> first_tree_level(Bug bug, const Bf16* x, int64_t head_dim) {
  std::vector<float> level(static_cast<size_t>(head_dim));
  for (int64_t d = 0; d < head_dim; ++d) level[d] = flush(bug, in(bug, x[d]) * in(bug, x[d]));
  if (bug != Bug::kFmaContraction) return level;
  std::vector<float> fused(static_cast<size_t>(head_dim / 2));
  for (int64_t i = 0; i < head_dim / 2; ++i) fused[i] = std::fma(f(x[2 * i]), f(x[2 * i]), level[2 * i + 1]);
  return fused;
}

float sum_of_squares(Bug bug, const Bf16* x, int64_t head_dim) {
  std::vector<float> leaves = first_tree_level(bug, x, head_dim);
  if (bug == Bug::kFlushSubnormals) {  // the pairwise tree with every sum flushed
    for (size_t width = leaves.size(); width > 1; width /= 2)
      for (size_t i = 0; i < width / 2; ++i) leaves[i] = flush(bug, leaves[2 * i] + leaves[2 * i + 1]);
    return leaves.empty() ? 0.0f : leaves[0];
  }
  if (bug != Bug::kSumOfSquaresSequential) return pairwise_sum(leaves.data(), static_cast<int64_t>(leaves.size()));
  float ss = 0.0f;
  for (float v : leaves) ss = ss + v;
  return ss;
}

// A product rounded to bf16 and back, as a kernel that keeps its RoPE products in bf16 does.
float through_bf16(float x) { return f(bf16_from_float(x)); }

// One rotary pair (a, b) by (c, s): (a·c - b·s, b·c + a·s), each product rounded unless fused
// (to binary32; to bf16 in the upstream-like arithmetic).
std::array<Bf16, 2> rotate(Bug bug, Arithmetic arithmetic, float a, float b, float c, float s) {
  if (bug == Bug::kFmaContraction || bug == Bug::kRopeFma) return rope_pair_fma(a, b, c, s);
  if (bug == Bug::kRopeProductsInBf16) return rope_pair_products_in_bf16(a, b, c, s);
  float ac = flush(bug, a * c);
  float bs = flush(bug, b * s);
  float bc = flush(bug, b * c);
  float as = flush(bug, a * s);
  if (arithmetic == Arithmetic::kUpstreamLike) {
    ac = through_bf16(ac);
    bs = through_bf16(bs);
    bc = through_bf16(bc);
    as = through_bf16(as);
  }
  return {to_bf16(bug, flush(bug, bug == Bug::kRopeSignSlip ? ac + bs : ac - bs)), to_bf16(bug, flush(bug, bc + as))};
}

// A hardware-style approximate 1/sqrt(x): the correctly rounded value moved by one binary32 ulp
// for about half of the inputs (rsqrt.approx is within a few ulps, not correctly rounded).
float approximate_rsqrt(float x) {
  const float exact = 1.0f / std::sqrt(x);
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 1u) != 0 ? std::nextafter(exact, 0.0f) : exact;
}

// Members summed by a pairwise tree (adjacent pairs, an odd last value carried up).
float tree_sum(std::vector<float> values) {
  while (values.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2) next.push_back(values[i] + values[i + 1]);
    if (values.size() % 2 == 1) next.push_back(values.back());
    values = std::move(next);
  }
  return values.empty() ? 0.0f : values[0];
}

}  // namespace

int mrope_axis(Bug bug, int64_t pair, const MropeSections& sections) {
  const int axis = qsa::mrope_axis(pair, sections);
  if (bug != Bug::kWrongMropeAxis || axis == 0) return axis;
  return axis == 1 ? 2 : 1;
}

// The sections a kernel hard-codes when it assumes the model's split: 11:11:10 of rd / 2, h and w
// rounded up, w capped by what is left, t the rest (traces' ScenarioConfig::mrope_sections).
MropeSections proportional_sections(int64_t rotary_dim) {
  const int64_t hp = rotary_dim / 2;
  const int64_t h = (hp * 11 + 31) / 32;
  const int64_t w = std::min((hp * 10 + 31) / 32, hp - h);
  return std::array<int64_t, 3>{hp - h - w, h, w};
}

void rope_neox(Bug bug, Bf16* y, int64_t head_dim, int64_t rotary_dim, const std::array<int64_t, 3>& positions,
               const MropeSections& given, const Bf16* cos_sin, Arithmetic arithmetic) {
  const MropeSections sections =
      bug == Bug::kMropeProportionalSections && given ? proportional_sections(rotary_dim) : given;
  if (bug != Bug::kWrongMropeAxis && bug != Bug::kFmaContraction && bug != Bug::kRopeFma &&
      bug != Bug::kRopeInterleavedPairs && bug != Bug::kRopeSignSlip && bug != Bug::kRopeProductsInBf16 &&
      !rounding_bug(bug) && arithmetic == Arithmetic::kCanonical) {
    qsa::rope_neox(y, head_dim, rotary_dim, positions, sections, cos_sin);
    return;
  }
  const int64_t hp = rotary_dim / 2;
  for (int64_t i = 0; i < hp; ++i) {
    const Bf16* row = cos_sin + positions[mrope_axis(bug, i, sections)] * rotary_dim;
    // NeoX pairs element i with hp + i; GPT-J pairs adjacent elements.
    const int64_t first = bug == Bug::kRopeInterleavedPairs ? 2 * i : i;
    const int64_t second = bug == Bug::kRopeInterleavedPairs ? 2 * i + 1 : hp + i;
    const std::array<Bf16, 2> out =
        rotate(bug, arithmetic, in(bug, y[first]), in(bug, y[second]), in(bug, row[i]), in(bug, row[hp + i]));
    y[first] = out[0];
    y[second] = out[1];
  }
}

void rms_norm(Bug bug, const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, Bf16* y, Arithmetic arithmetic) {
  if (const auto alternative = alternative_of(bug); alternative && arithmetic == Arithmetic::kCanonical) {
    qsa::rms_norm_with(*alternative, x, weight, head_dim, eps, y);
    return;
  }
  if (bug != Bug::kFmaContraction && bug != Bug::kSumOfSquaresSequential && bug != Bug::kNormWeightWithoutOne &&
      !rounding_bug(bug) && arithmetic == Arithmetic::kCanonical) {
    qsa::rms_norm(x, weight, head_dim, eps, y);
    return;
  }
  const float mean = flush(bug, sum_of_squares(bug, x, head_dim) / static_cast<float>(head_dim));
  const float rrms = arithmetic == Arithmetic::kUpstreamLike ? approximate_rsqrt(mean + eps)
                                                             : flush(bug, 1.0f / std::sqrt(flush(bug, mean + eps)));
  for (int64_t d = 0; d < head_dim; ++d) {
    const float gain = bug == Bug::kNormWeightWithoutOne ? in(bug, weight[d]) : flush(bug, 1.0f + in(bug, weight[d]));
    y[d] = to_bf16(bug, flush(bug, flush(bug, in(bug, x[d]) * rrms) * gain));
  }
}

void pool_group(Bug bug, const Bf16* const* members, int64_t compress_ratio, int64_t head_dim, Bf16* out,
                Arithmetic arithmetic) {
  if (const auto alternative = alternative_of(bug); alternative && arithmetic == Arithmetic::kCanonical) {
    std::vector<float> values(static_cast<size_t>(compress_ratio));
    for (int64_t d = 0; d < head_dim; ++d) {
      for (int64_t i = 0; i < compress_ratio; ++i) values[i] = f(members[i][d]);
      out[d] = pool_element_with(*alternative, values.data(), compress_ratio);
    }
    return;
  }
  if (arithmetic == Arithmetic::kUpstreamLike && bug != Bug::kPoolAccumulatesInBf16) {
    std::vector<float> values(static_cast<size_t>(compress_ratio));
    for (int64_t d = 0; d < head_dim; ++d) {
      for (int64_t i = 0; i < compress_ratio; ++i) values[i] = f(members[i][d]);
      out[d] = bf16_from_float(tree_sum(values) / static_cast<float>(compress_ratio));
    }
    return;
  }
  if (rounding_bug(bug)) {
    for (int64_t d = 0; d < head_dim; ++d) {
      float s = in(bug, members[0][d]);
      for (int64_t i = 1; i < compress_ratio; ++i) s = flush(bug, s + in(bug, members[i][d]));
      out[d] = to_bf16(bug, flush(bug, s / static_cast<float>(compress_ratio)));
    }
    return;
  }
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
  const Fp8 rounded = qsa::e4m3_from_bf16(x);
  // Truncation: where round-to-nearest-even went up in magnitude (below the saturation), the
  // e4m3 value one step towards zero.
  if (bug == Bug::kE4m3Truncation && !std::isnan(v) && std::fabs(v) < 448.0f &&
      std::fabs(float_from_e4m3(rounded)) > std::fabs(v))
    return static_cast<Fp8>(rounded - 1);
  return rounded;
}

}  // namespace qsa::planted
