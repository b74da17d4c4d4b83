// SPEC 6, written from the rules: binary32 round-to-nearest-even, products and sums rounded one
// at a time (this file is built with -ffp-contract=off), the pairwise tree for the sum of squares.
// The numerical variants are each one rounding step done as kernels often do it instead; each
// differs from the contract only on rare inputs, which qsacheck's content searches for.

#include <cmath>
#include <cstring>

#include "example.hpp"

namespace example {

float to_float(Bf16 x) {
  const uint32_t bits = uint32_t{x} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Bf16 to_bf16(float x, Variant variant) {
  if (std::isnan(x)) return variant == Variant::kBf16NanCanonical ? 0x7FC0 : 0x7FFF;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);  // ties to even
  return static_cast<Bf16>(rounded >> 16);
}

uint8_t to_fp8(Bf16 x, Variant variant) {
  const float v = to_float(x);
  const uint8_t sign = (x & 0x8000u) ? 0x80 : 0x00;
  if (std::isnan(v)) return 0x7F;
  const float a = std::fabs(v);
  if (a >= 448.0f) return variant == Variant::kFp8NoSaturation && a > 464.0f ? 0x7F : static_cast<uint8_t>(sign | 0x7E);
  // e4m3fn: exponent bias 7, 3 mantissa bits, smallest normal 2^-6, subnormal step 2^-9.
  int binade = 0;
  std::frexp(a, &binade);  // a = m * 2^binade, m in [0.5, 1)
  int exponent = binade - 1;
  if (a == 0.0f || exponent < -6) exponent = -6;
  const float step = std::ldexp(1.0f, exponent - 3);
  const float units = std::nearbyint(a / step);  // a / step is exact: a has at most 8 significant bits
  int e = exponent;
  int q = static_cast<int>(units);
  if (q == 16) {  // rounded up into the next binade
    q = 8;
    e += 1;
  }
  if (q < 8) return static_cast<uint8_t>(sign | q);  // subnormal (only when e == -6)
  return static_cast<uint8_t>(sign | ((e + 7) << 3) | (q - 8));
}

void rms_norm(const Bf16* x, const Bf16* w, int64_t d, float eps, Bf16* y, Variant variant) {
  std::vector<float> level(static_cast<size_t>(d));
  for (int64_t i = 0; i < d; ++i) level[i] = to_float(x[i]) * to_float(x[i]);
  for (int64_t width = d; width > 1; width /= 2)
    for (int64_t i = 0; i < width / 2; ++i) level[i] = level[2 * i] + level[2 * i + 1];
  const float mean = level[0] / static_cast<float>(d);
  // SPEC 6.2 rounds twice: the square root, then the division. A correctly rounded rsqrt (computed
  // here in binary64) rounds once, and differs where the two roundings do not compose.
  const float rrms = variant == Variant::kRsqrtSingleRounding
                         ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(mean + eps)))
                         : 1.0f / std::sqrt(mean + eps);
  for (int64_t i = 0; i < d; ++i) y[i] = to_bf16((to_float(x[i]) * rrms) * (1.0f + to_float(w[i])), variant);
}

void rope(Bf16* y, const QsaPluginStepArgs& args, const int64_t position[3], Variant variant) {
  const int64_t rd = args.rotary_dim;
  const int64_t hp = rd / 2;
  const Bf16* table = static_cast<const Bf16*>(args.cos_sin.data);
  for (int64_t i = 0; i < hp; ++i) {
    int axis = 0;
    if (args.has_mrope && i % 3 == 1 && i < 3 * args.mrope_sections[1]) axis = 1;
    if (args.has_mrope && i % 3 == 2 && i < 3 * args.mrope_sections[2]) axis = 2;
    const Bf16* row = table + position[axis] * rd;
    const float c = to_float(row[i]), s = to_float(row[hp + i]);
    const float a = to_float(y[i]), b = to_float(y[hp + i]);
    const float ac = a * c, bs = b * s, bc = b * c, as = a * s;
    // A contracting compiler (-ffp-contract=fast; nvcc by default) fuses one product into each add.
    // A product of two bf16 values is exact in binary32 unless it lies below 2^-133, so the fused
    // result differs only on tiny values.
    if (variant == Variant::kRopeFusedMultiplyAdd) {
      y[i] = to_bf16(std::fma(a, c, -bs), variant);
      y[hp + i] = to_bf16(std::fma(b, c, as), variant);
      continue;
    }
    y[i] = to_bf16(ac - bs, variant);
    y[hp + i] = to_bf16(bc + as, variant);
  }
}

void pool(const std::vector<const Bf16*>& members, int64_t d, Bf16* out, Variant variant) {
  const auto c = static_cast<float>(members.size());
  for (int64_t i = 0; i < d; ++i) {
    float s = to_float(members[0][i]);
    for (size_t m = 1; m < members.size(); ++m) s = s + to_float(members[m][i]);
    // A multiply by 1/C is cheaper than a division; for C not a power of two it is not the
    // correctly rounded quotient, and the bf16 result differs near a rounding boundary.
    out[i] = to_bf16(variant == Variant::kPoolReciprocalMultiply ? s * (1.0f / c) : s / c, variant);
  }
}

}  // namespace example
