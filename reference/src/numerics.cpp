// SPEC 6, rule by rule. Built with -ffp-contract=off (reference/CMakeLists.txt): a contracted
// a*b+c would round once instead of twice and break bit-exactness.

#include "qsa/numerics.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

// SPEC 6: binary32 arithmetic without excess precision (x86-64 SSE and aarch64 both give 0).
static_assert(FLT_EVAL_METHOD == 0, "the canonical arithmetic needs FLT_EVAL_METHOD == 0");

namespace qsa {
namespace {

// n floats: the stack array when they fit (D <= 512), else the vector, resized.
float* scratch(int64_t n, std::array<float, 512>* small, std::vector<float>* large) {
  if (n <= static_cast<int64_t>(small->size())) return small->data();
  large->resize(static_cast<size_t>(n));
  return large->data();
}

}  // namespace

Bf16 bf16_from_float(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  if (std::isnan(x)) return 0x7FFF;
  // Round to nearest even on the upper 16 bits: add 0x7FFF plus the lowest kept bit.
  const uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  return static_cast<Bf16>(bits >> 16);
}

float float_from_bf16(Bf16 x) {
  const uint32_t bits = static_cast<uint32_t>(x) << 16;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Fp8 e4m3_from_bf16(Bf16 x) {
  const float v = float_from_bf16(x);
  if (std::isnan(v)) return 0x7F;
  const int sign = (x & 0x8000u) != 0 ? 0x80 : 0x00;
  auto encode = [sign](int magnitude) { return static_cast<Fp8>(sign | magnitude); };
  const double a = std::fabs(static_cast<double>(v));
  if (a >= 448.0) return encode(0x7E);  // saturate (448 itself is 0x7E)
  if (a == 0.0) return encode(0);
  int exponent = 0;
  std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
  int e = exponent - 1;      // a in [2^e, 2^(e+1))
  if (e < -6) e = -6;        // subnormal range shares the scale of the smallest normal
  // Units of the last place at this scale are 2^(e-3); the quotient is exact (a is a bf16 value).
  const double units = std::nearbyint(std::ldexp(a, 3 - e));  // round-to-nearest-even
  const auto q = static_cast<int>(units);
  if (e == -6 && q < 8) return encode(q);  // subnormal: exponent field 0
  // Normal: q in [8, 16]; 16 carries into the next binade.
  const int biased = (q == 16 ? e + 1 : e) + 7;
  const int mantissa = q == 16 ? 0 : q - 8;
  if (biased > 15 || (biased == 15 && mantissa == 7)) return encode(0x7E);  // beyond 448
  return encode((biased << 3) | mantissa);
}

float float_from_e4m3(Fp8 x) {
  const int e = (x >> 3) & 0xF;
  const int m = x & 0x7;
  if (e == 15 && m == 7) return std::nanf("");
  const double magnitude = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return static_cast<float>((x & 0x80) != 0 ? -magnitude : magnitude);
}

float pairwise_sum(const float* values, int64_t n) {
  // Level by level in a scratch copy: after each level, element i holds the sum of pair i.
  std::array<float, 512> small{};
  std::vector<float> large;
  float* level = small.data();
  if (n > static_cast<int64_t>(small.size())) {
    large.resize(static_cast<size_t>(n));
    level = large.data();
  }
  std::copy(values, values + n, level);
  for (int64_t width = n; width > 1; width /= 2)
    for (int64_t i = 0; i < width / 2; ++i) level[i] = level[2 * i] + level[2 * i + 1];
  return n > 0 ? level[0] : 0.0f;
}

float rms_norm_rrms(float sum_of_squares, int64_t head_dim, float eps) {
  const float mean = sum_of_squares / static_cast<float>(head_dim);
  return 1.0f / std::sqrt(mean + eps);
}

float rms_norm_scale(Bf16 x, float rrms, Bf16 weight) {
  const float scaled = float_from_bf16(x) * rrms;
  const float gain = 1.0f + float_from_bf16(weight);
  return scaled * gain;
}

void rms_norm_binary32(const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, float* y) {
  std::array<float, 512> small;  // D <= 512 (SPEC 0); a larger D (not validated) still works
  std::vector<float> large;
  float* squares = scratch(head_dim, &small, &large);
  for (int64_t d = 0; d < head_dim; ++d) {
    const float v = float_from_bf16(x[d]);
    squares[d] = v * v;
  }
  const float rrms = rms_norm_rrms(pairwise_sum(squares, head_dim), head_dim, eps);
  for (int64_t d = 0; d < head_dim; ++d) y[d] = rms_norm_scale(x[d], rrms, weight[d]);
}

void rms_norm(const Bf16* x, const Bf16* weight, int64_t head_dim, float eps, Bf16* y) {
  std::array<float, 512> small;
  std::vector<float> large;
  float* values = scratch(head_dim, &small, &large);
  rms_norm_binary32(x, weight, head_dim, eps, values);
  for (int64_t d = 0; d < head_dim; ++d) y[d] = bf16_from_float(values[d]);
}

int mrope_axis(int64_t pair, const MropeSections& sections) {
  if (!sections) return 0;
  if (pair % 3 == 1 && pair < 3 * (*sections)[1]) return 1;
  if (pair % 3 == 2 && pair < 3 * (*sections)[2]) return 2;
  return 0;
}

void rope_neox(Bf16* y, int64_t head_dim, int64_t rotary_dim, const std::array<int64_t, 3>& positions,
               const MropeSections& sections, const Bf16* cos_sin) {
  (void)head_dim;  // elements [rd, D) pass through untouched
  const int64_t hp = rotary_dim / 2;
  for (int64_t i = 0; i < hp; ++i) {
    const Bf16* row = cos_sin + positions[mrope_axis(i, sections)] * rotary_dim;
    const float c = float_from_bf16(row[i]);
    const float s = float_from_bf16(row[hp + i]);
    const float a = float_from_bf16(y[i]);
    const float b = float_from_bf16(y[hp + i]);
    const float ac = a * c;
    const float bs = b * s;
    const float bc = b * c;
    const float as = a * s;
    y[i] = bf16_from_float(ac - bs);
    y[hp + i] = bf16_from_float(bc + as);
  }
}

void pool_group(const Bf16* const* members, int64_t compress_ratio, int64_t head_dim, Bf16* out) {
  for (int64_t d = 0; d < head_dim; ++d) {
    float s = float_from_bf16(members[0][d]);
    for (int64_t i = 1; i < compress_ratio; ++i) s = s + float_from_bf16(members[i][d]);
    out[d] = bf16_from_float(s / static_cast<float>(compress_ratio));
  }
}

std::vector<Bf16> make_cos_sin_table(double base, int64_t rotary_dim, int64_t max_position) {
  const int64_t hp = rotary_dim / 2;
  std::vector<Bf16> table(static_cast<size_t>(max_position * rotary_dim));
  for (int64_t p = 0; p < max_position; ++p) {
    for (int64_t i = 0; i < hp; ++i) {
      const double theta = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
      const double angle = static_cast<double>(p) * theta;
      table[p * rotary_dim + i] = bf16_from_float(static_cast<float>(std::cos(angle)));
      table[p * rotary_dim + hp + i] = bf16_from_float(static_cast<float>(std::sin(angle)));
    }
  }
  return table;
}

}  // namespace qsa
