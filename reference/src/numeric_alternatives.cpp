// The other roundings of SPEC 6, one function each (qsa/numeric_alternatives.hpp). Built with
// -ffp-contract=off (reference/CMakeLists.txt): every fusion here is an explicit std::fma.

#include "qsa/numeric_alternatives.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace qsa {

const std::vector<NumericAlternativeInfo>& numeric_alternatives() {
  using A = NumericAlternative;
  static const std::vector<NumericAlternativeInfo> table = {
      {A::kPoolReciprocalMultiply, "pool-reciprocal-multiply", "6.1 pool", "s / C", "s * (1/C)",
       "C a power of two"},
      {A::kPoolPairwiseTree, "pool-pairwise-tree", "6.1 pool", "s = s + f(m_i), i = 1 ... C-1",
       "adjacent pairs added level by level", "C <= 3"},
      {A::kPoolReverseOrder, "pool-reverse-order", "6.1 pool", "s = s + f(m_i), i = 1 ... C-1",
       "summed from m_{C-1} down to m_0", "C <= 2"},
      {A::kSumOfSquaresSequential, "sum-of-squares-sequential", "6.2 sum of squares", "the pairwise tree in index order",
       "left to right", ""},
      {A::kSumOfSquaresHalvingTree, "sum-of-squares-halving-tree", "6.2 sum of squares",
       "the pairwise tree in index order", "each level adds a_i + a_{i+w/2} (a shared-memory reduction)", ""},
      {A::kSumOfSquaresFma, "sum-of-squares-fma", "6.2 sum of squares", "leaves f(x_d)*f(x_d), each rounded",
       "first level fma(x_2i, x_2i, x_2i+1^2)", "every square at least 2^-133 in magnitude"},
      {A::kMeanReciprocalMultiply, "mean-reciprocal-multiply", "6.2 mean", "ss / D", "ss * (1/D)",
       "every legal input (D is a power of two)"},
      {A::kRsqrtSingleRounding, "rsqrt-single-rounding", "6.2 rrms", "1 / sqrt(mean + eps), two roundings",
       "1/sqrt rounded once", ""},
      {A::kNormDividesByRms, "norm-divides-by-rms", "6.2 scale", "(f(x) * rrms) * (1 + f(w))",
       "(f(x) / sqrt(mean + eps)) * (1 + f(w))", ""},
      {A::kNormScaleReassociated, "norm-scale-reassociated", "6.2 scale", "(f(x) * rrms) * (1 + f(w))",
       "f(x) * (rrms * (1 + f(w)))", ""},
      {A::kRopeFma, "rope-fma", "6.3 RoPE", "a*c - b*s, b*c + a*s: each product rounded, then the add",
       "one fused multiply-add per output", "every product at least 2^-133 in magnitude"},
      {A::kRopeProductsInBf16, "rope-products-in-bf16", "6.3 RoPE", "products rounded to binary32",
       "products rounded to bf16 before the add", ""},
      {A::kBf16NanCanonical, "bf16-nan-canonical", "6 bf16(x)", "any NaN -> 0x7FFF", "any NaN -> 0x7FC0",
       "no NaN reaches a rounding"},
  };
  return table;
}

static_assert(static_cast<int>(NumericAlternative::kBf16NanCanonical) + 1 == kNumNumericAlternatives);

const NumericAlternativeInfo& numeric_alternative_info(NumericAlternative alternative) {
  const auto& table = numeric_alternatives();
  return *std::find_if(table.begin(), table.end(),
                       [alternative](const NumericAlternativeInfo& i) { return i.alternative == alternative; });
}

namespace {

float sequential_sum(const float* values, int64_t n) {
  float s = values[0];
  for (int64_t i = 1; i < n; ++i) s = s + values[i];
  return s;
}

}  // namespace

Bf16 pool_element(const float* members, int64_t compress_ratio) {
  return bf16_from_float(sequential_sum(members, compress_ratio) / static_cast<float>(compress_ratio));
}

Bf16 pool_reciprocal_multiply(const float* members, int64_t compress_ratio) {
  const float reciprocal = 1.0f / static_cast<float>(compress_ratio);
  return bf16_from_float(sequential_sum(members, compress_ratio) * reciprocal);
}

Bf16 pool_pairwise_tree(const float* members, int64_t compress_ratio) {
  std::vector<float> level(members, members + compress_ratio);
  while (level.size() > 1) {
    std::vector<float> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
    if (level.size() % 2 == 1) next.push_back(level.back());
    level = std::move(next);
  }
  return bf16_from_float(level[0] / static_cast<float>(compress_ratio));
}

Bf16 pool_reverse_order(const float* members, int64_t compress_ratio) {
  float s = members[compress_ratio - 1];
  for (int64_t i = compress_ratio - 2; i >= 0; --i) s = s + members[i];
  return bf16_from_float(s / static_cast<float>(compress_ratio));
}

Bf16 pool_element_with(NumericAlternative alternative, const float* members, int64_t compress_ratio) {
  switch (alternative) {
    case NumericAlternative::kPoolReciprocalMultiply:
      return pool_reciprocal_multiply(members, compress_ratio);
    case NumericAlternative::kPoolPairwiseTree:
      return pool_pairwise_tree(members, compress_ratio);
    case NumericAlternative::kPoolReverseOrder:
      return pool_reverse_order(members, compress_ratio);
    default:
      return pool_element(members, compress_ratio);
  }
}

float sum_of_squares_sequential(const float* squares, int64_t n) { return n > 0 ? sequential_sum(squares, n) : 0.0f; }

float sum_of_squares_halving_tree(const float* squares, int64_t n) {
  std::vector<float> level(squares, squares + n);
  for (int64_t width = n; width > 1; width /= 2)
    for (int64_t i = 0; i < width / 2; ++i) level[i] = level[i] + level[i + width / 2];
  return n > 0 ? level[0] : 0.0f;
}

float sum_of_squares_fma(const Bf16* x, int64_t n) {
  std::vector<float> leaves(static_cast<size_t>(std::max<int64_t>(1, n / 2)));
  for (int64_t i = 0; i < n / 2; ++i) {
    const float odd = float_from_bf16(x[2 * i + 1]);
    leaves[i] = std::fma(float_from_bf16(x[2 * i]), float_from_bf16(x[2 * i]), odd * odd);
  }
  if (n == 1) return float_from_bf16(x[0]) * float_from_bf16(x[0]);
  return pairwise_sum(leaves.data(), n / 2);
}

float mean_reciprocal_multiply(float sum_of_squares, int64_t head_dim) {
  return sum_of_squares * (1.0f / static_cast<float>(head_dim));
}

float rrms_single_rounding(float sum_of_squares, int64_t head_dim, float eps) {
  const float mean = sum_of_squares / static_cast<float>(head_dim);
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(mean + eps)));
}

float norm_scale_divides(Bf16 x, float rms, Bf16 weight) {
  const float scaled = float_from_bf16(x) / rms;
  return scaled * (1.0f + float_from_bf16(weight));
}

float norm_scale_reassociated(Bf16 x, float rrms, Bf16 weight) {
  const float factor = rrms * (1.0f + float_from_bf16(weight));
  return float_from_bf16(x) * factor;
}

void rms_norm_with(NumericAlternative alternative, const Bf16* x, const Bf16* weight, int64_t head_dim, float eps,
                   Bf16* y) {
  using A = NumericAlternative;
  std::vector<float> squares(static_cast<size_t>(head_dim));
  for (int64_t d = 0; d < head_dim; ++d) squares[d] = float_from_bf16(x[d]) * float_from_bf16(x[d]);
  float ss = 0;
  switch (alternative) {
    case A::kSumOfSquaresSequential:
      ss = sum_of_squares_sequential(squares.data(), head_dim);
      break;
    case A::kSumOfSquaresHalvingTree:
      ss = sum_of_squares_halving_tree(squares.data(), head_dim);
      break;
    case A::kSumOfSquaresFma:
      ss = sum_of_squares_fma(x, head_dim);
      break;
    default:
      ss = pairwise_sum(squares.data(), head_dim);
      break;
  }
  float rrms = 0;
  float rms = 0;
  if (alternative == A::kRsqrtSingleRounding) {
    rrms = rrms_single_rounding(ss, head_dim, eps);
  } else {
    const float mean = alternative == A::kMeanReciprocalMultiply ? mean_reciprocal_multiply(ss, head_dim)
                                                                  : ss / static_cast<float>(head_dim);
    rms = std::sqrt(mean + eps);
    rrms = 1.0f / rms;
  }
  for (int64_t d = 0; d < head_dim; ++d) {
    const float v = alternative == A::kNormDividesByRms        ? norm_scale_divides(x[d], rms, weight[d])
                    : alternative == A::kNormScaleReassociated ? norm_scale_reassociated(x[d], rrms, weight[d])
                                                               : rms_norm_scale(x[d], rrms, weight[d]);
    y[d] = bf16_from_float(v);
  }
}

std::array<Bf16, 2> rope_pair(float a, float b, float c, float s) {
  const float ac = a * c;
  const float bs = b * s;
  const float bc = b * c;
  const float as = a * s;
  return {bf16_from_float(ac - bs), bf16_from_float(bc + as)};
}

std::array<Bf16, 2> rope_pair_fma(float a, float b, float c, float s) {
  return {bf16_from_float(std::fma(a, c, -(b * s))), bf16_from_float(std::fma(b, c, a * s))};
}

std::array<Bf16, 2> rope_pair_products_in_bf16(float a, float b, float c, float s) {
  auto round = [](float v) { return float_from_bf16(bf16_from_float(v)); };
  return {bf16_from_float(round(a * c) - round(b * s)), bf16_from_float(round(b * c) + round(a * s))};
}

std::array<Bf16, 2> rope_pair_with(NumericAlternative alternative, float a, float b, float c, float s) {
  switch (alternative) {
    case NumericAlternative::kRopeFma:
      return rope_pair_fma(a, b, c, s);
    case NumericAlternative::kRopeProductsInBf16:
      return rope_pair_products_in_bf16(a, b, c, s);
    default:
      return rope_pair(a, b, c, s);
  }
}

Bf16 bf16_nan_canonical(float x) { return std::isnan(x) ? Bf16{0x7FC0} : bf16_from_float(x); }

}  // namespace qsa
