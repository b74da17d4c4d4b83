// The numeric building blocks of SPEC 6, each checked exhaustively (or over every rounding
// class) against an independent formulation written here in double precision.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "qsa/numerics.hpp"

namespace qsa {
namespace {

float float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Independent bf16 rounding: pick the nearer of the two bf16 neighbours in double, ties to the
// even pattern; the pattern past the largest finite value stands for 2^128 so that overflow
// rounds to infinity exactly as binary32 -> bf16 RNE does.
Bf16 bf16_by_nearest(float x) {
  if (std::isnan(x)) return 0x7FFF;
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const auto below = static_cast<Bf16>(bits >> 16);  // truncation: toward zero
  if ((bits & 0xFFFFu) == 0) return below;
  const auto above = static_cast<Bf16>(below + 1);
  auto value = [](Bf16 p) {
    if ((p & 0x7FFF) == 0x7F80) return std::copysign(std::ldexp(1.0, 128), (p & 0x8000) ? -1.0 : 1.0);
    return static_cast<double>(float_from_bf16(p));
  };
  const double v = x;
  const double d_below = std::fabs(v - value(below));
  const double d_above = std::fabs(v - value(above));
  if (d_below < d_above) return below;
  if (d_above < d_below) return above;
  return (below & 1) == 0 ? below : above;
}

TEST(Bf16Rounding, MatchesNearestEvenOverEveryRoundingClass) {
  // Rounding depends on the upper 16 bits and on whether the lower 16 are below, at or above
  // half: every upper pattern with each class of lower pattern covers all cases.
  const uint32_t lows[] = {0x0000, 0x0001, 0x3FFF, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};
  int64_t checked = 0;
  for (uint32_t high = 0; high < 0x10000; ++high) {
    for (uint32_t low : lows) {
      const float x = float_from_bits(high << 16 | low);
      ASSERT_EQ(bf16_from_float(x), bf16_by_nearest(x)) << std::hex << "bits 0x" << (high << 16 | low);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 65536 * 8);
}

TEST(Bf16Rounding, SpecialValues) {
  EXPECT_EQ(bf16_from_float(std::numeric_limits<float>::quiet_NaN()), 0x7FFF);
  EXPECT_EQ(bf16_from_float(-std::numeric_limits<float>::quiet_NaN()), 0x7FFF);  // any NaN
  EXPECT_EQ(bf16_from_float(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(bf16_from_float(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(bf16_from_float(std::numeric_limits<float>::max()), 0x7F80);  // overflows to inf
  EXPECT_EQ(bf16_from_float(float_from_bits(0x3F808000)), 0x3F80);        // tie -> even
  EXPECT_EQ(bf16_from_float(float_from_bits(0x3F818000)), 0x3F82);        // tie -> even (up)
  EXPECT_EQ(bf16_from_float(float_from_bits(0x00000001)), 0x0000);        // smallest subnormal
  EXPECT_EQ(bf16_from_float(float_from_bits(0x00018000)), 0x0002);        // subnormal tie -> even
  EXPECT_EQ(bf16_from_float(-0.0f), 0x8000);
}

TEST(Bf16Rounding, EveryBf16ValueRoundTripsExactly) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const auto x = static_cast<Bf16>(p);
    if (std::isnan(float_from_bf16(x))) continue;
    ASSERT_EQ(bf16_from_float(float_from_bf16(x)), x) << std::hex << p;
  }
}

// Independent e4m3fn: decode all 256 patterns, then take the nearest finite one (ties to the
// even mantissa), saturating beyond 448.
Fp8 e4m3_by_nearest(Bf16 x) {
  const double v = float_from_bf16(x);
  if (std::isnan(v)) return 0x7F;
  Fp8 best = 0;
  double best_distance = std::numeric_limits<double>::infinity();
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7F) == 0x7F) continue;  // NaN patterns
    const int e = (code >> 3) & 0xF;
    const int m = code & 7;
    double value = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    if (code & 0x80) value = -value;
    if (std::signbit(value) != std::signbit(v)) continue;  // keep the sign, also for zero
    const double distance = std::fabs(v - value);
    if (distance < best_distance || (distance == best_distance && (code & 1) == 0)) {
      best = static_cast<Fp8>(code);
      best_distance = distance;
    }
  }
  return best;
}

TEST(E4m3Conversion, MatchesNearestEvenWithSaturationForAllBf16Inputs) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const auto x = static_cast<Bf16>(p);
    ASSERT_EQ(e4m3_from_bf16(x), e4m3_by_nearest(x)) << std::hex << "bf16 0x" << p << " = " << float_from_bf16(x);
  }
}

TEST(E4m3Conversion, SaturationAndSpecialValues) {
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(448.0f)), 0x7E);
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(480.0f)), 0x7E);
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(1e30f)), 0x7E);
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(-1e30f)), 0xFE);
  EXPECT_EQ(e4m3_from_bf16(0x7F80), 0x7E);                                  // +inf
  EXPECT_EQ(e4m3_from_bf16(0xFF80), 0xFE);                                  // -inf
  EXPECT_EQ(e4m3_from_bf16(0x7FC0), 0x7F);                                  // NaN
  EXPECT_EQ(e4m3_from_bf16(0xFFC0), 0x7F);                                  // NaN of either sign
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(std::ldexp(1.0f, -9))), 0x01);   // smallest subnormal
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(std::ldexp(1.0f, -10))), 0x00);  // half of it: tie to even 0
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(std::ldexp(3.0f, -10))), 0x02);  // 1.5 units: tie to even 2
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(std::ldexp(1.0f, -6))), 0x08);   // smallest normal
  EXPECT_EQ(e4m3_from_bf16(bf16_from_float(1.0f)), 0x38);
  EXPECT_EQ(float_from_e4m3(0x7E), 448.0f);
  EXPECT_TRUE(std::isnan(float_from_e4m3(0x7F)));
}

float recursive_tree_sum(const float* v, int64_t n) {
  if (n == 1) return v[0];
  const float left = recursive_tree_sum(v, n / 2);
  const float right = recursive_tree_sum(v + n / 2, n / 2);
  return left + right;
}

TEST(PairwiseSum, EqualsTheRecursiveHalvingTreeForEveryPowerOfTwo) {
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) * 1e-3f;
  };
  for (int64_t n = 1; n <= 512; n *= 2) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& x : v) x = next();
      ASSERT_EQ(pairwise_sum(v.data(), n), recursive_tree_sum(v.data(), n)) << "n = " << n;
    }
  }
}

TEST(PairwiseSum, OrderIsTheTreeNotTheSequence) {
  const float v[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  // Tree: (1e8 + 1) + (-1e8 + 1) = 1e8 + -1e8 = 0 (1 is below half the spacing at 1e8).
  EXPECT_EQ(pairwise_sum(v, 4), 0.0f);
  // A sequential sum would give ((1e8 + 1) - 1e8) + 1 = 1.
  float sequential = v[0];
  for (int i = 1; i < 4; ++i) sequential = sequential + v[i];
  EXPECT_EQ(sequential, 1.0f);
}

TEST(RmsNorm, HandCheckedExactExample) {
  // x_d = 2 for D = 32: ss = 128, mean = 4, mean + 2^-30 rounds to 4, rrms = 0.5, so
  // y_d = bf16(2 * 0.5 * (1 + w)) = 1 + w exactly.
  std::vector<Bf16> x(32, bf16_from_float(2.0f));
  std::vector<Bf16> w(32, bf16_from_float(0.5f));
  w[3] = bf16_from_float(-1.0f);
  std::vector<Bf16> y(32);
  rms_norm(x.data(), w.data(), 32, std::ldexp(1.0f, -30), y.data());
  for (int d = 0; d < 32; ++d) EXPECT_EQ(y[d], d == 3 ? bf16_from_float(0.0f) : bf16_from_float(1.5f)) << d;
}

TEST(RmsNorm, FollowsTheRecipeStepByStep) {
  // The recipe written out once more with explicit temporaries, on varied data.
  const int64_t d_model = 128;
  std::vector<Bf16> x(d_model), w(d_model), y(d_model);
  for (int64_t d = 0; d < d_model; ++d) {
    x[d] = bf16_from_float(std::sin(0.37f * static_cast<float>(d)) * 3.0f);
    w[d] = bf16_from_float(0.01f * static_cast<float>(d % 7) - 0.02f);
  }
  const float eps = 1e-6f;
  rms_norm(x.data(), w.data(), d_model, eps, y.data());
  std::vector<float> squares(d_model);
  for (int64_t d = 0; d < d_model; ++d) squares[d] = float_from_bf16(x[d]) * float_from_bf16(x[d]);
  const float ss = recursive_tree_sum(squares.data(), d_model);
  const float mean = ss / 128.0f;
  const float root = std::sqrt(mean + eps);
  const float rrms = 1.0f / root;
  for (int64_t d = 0; d < d_model; ++d) {
    const float scaled = float_from_bf16(x[d]) * rrms;
    const float gain = 1.0f + float_from_bf16(w[d]);
    ASSERT_EQ(y[d], bf16_from_float(scaled * gain)) << d;
  }
}

TEST(MropeAxis, InterleavedSectionsOfTheRealModel) {
  const MropeSections sections = std::array<int64_t, 3>{11, 11, 10};
  for (int64_t i = 0; i < 32; ++i) {
    const int expected = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : (i <= 29 ? 2 : 0);
    EXPECT_EQ(mrope_axis(i, sections), expected) << "pair " << i;
  }
  // T = {0, 3, ..., 30}, H = {1, 4, ..., 31}, W = {2, 5, ..., 29}.
  EXPECT_EQ(mrope_axis(30, sections), 0);
  EXPECT_EQ(mrope_axis(31, sections), 1);
  EXPECT_EQ(mrope_axis(29, sections), 2);
  EXPECT_EQ(mrope_axis(7, std::nullopt), 0);  // no sections: always t
  // Small sections leave later pairs on t.
  const MropeSections small = std::array<int64_t, 3>{6, 1, 1};
  EXPECT_EQ(mrope_axis(1, small), 1);
  EXPECT_EQ(mrope_axis(4, small), 0);
  EXPECT_EQ(mrope_axis(2, small), 2);
  EXPECT_EQ(mrope_axis(5, small), 0);
}

TEST(RopeNeox, QuarterTurnSwapsPairsAndPassesTheRestThrough) {
  // rd = 4 (hp = 2), D = 32; table row 1 holds cos = 0, sin = 1 for both pairs.
  const int64_t rd = 4;
  std::vector<Bf16> table = {bf16_from_float(1), bf16_from_float(1), bf16_from_float(0), bf16_from_float(0),
                             bf16_from_float(0), bf16_from_float(0), bf16_from_float(1), bf16_from_float(1)};
  std::vector<Bf16> y(32);
  for (int d = 0; d < 32; ++d) y[d] = bf16_from_float(static_cast<float>(d + 1));
  const std::vector<Bf16> before = y;
  rope_neox(y.data(), 32, rd, {1, 1, 1}, std::nullopt, table.data());
  // out_i = a*0 - b*1 = -b, out_{hp+i} = b*0 + a*1 = a.
  EXPECT_EQ(y[0], bf16_from_float(-3));
  EXPECT_EQ(y[1], bf16_from_float(-4));
  EXPECT_EQ(y[2], bf16_from_float(1));
  EXPECT_EQ(y[3], bf16_from_float(2));
  for (int d = 4; d < 32; ++d) EXPECT_EQ(y[d], before[d]) << d;
  rope_neox(y.data(), 32, rd, {0, 0, 0}, std::nullopt, table.data());  // row 0: identity
  EXPECT_EQ(y[0], bf16_from_float(-3));
}

TEST(RopeNeox, EachPairReadsThePositionOfItsMropeAxis) {
  // rd = 6 (hp = 3), sections (1, 1, 1): pair 0 -> t, pair 1 -> h, pair 2 -> w. Row p of the
  // table holds cos = 0 and sin = 1 only in the pair whose axis has position p.
  const int64_t rd = 6;
  std::vector<Bf16> table(4 * rd, bf16_from_float(0));
  auto set = [&](int64_t row, int64_t pair, float c, float s) {
    table[row * rd + pair] = bf16_from_float(c);
    table[row * rd + 3 + pair] = bf16_from_float(s);
  };
  for (int64_t row = 0; row < 4; ++row)
    for (int64_t pair = 0; pair < 3; ++pair) set(row, pair, 1, 0);  // identity everywhere ...
  set(1, 0, 0, 1);  // ... except pair 0 at row 1 (t), pair 1 at row 2 (h), pair 2 at row 3 (w)
  set(2, 1, 0, 1);
  set(3, 2, 0, 1);
  std::vector<Bf16> y(32, bf16_from_float(0));
  for (int d = 0; d < 6; ++d) y[d] = bf16_from_float(static_cast<float>(d + 1));
  rope_neox(y.data(), 32, rd, {1, 2, 3}, std::array<int64_t, 3>{1, 1, 1}, table.data());
  for (int64_t pair = 0; pair < 3; ++pair) {  // every pair turned by a quarter
    EXPECT_EQ(y[pair], bf16_from_float(-static_cast<float>(pair + 4))) << pair;
    EXPECT_EQ(y[3 + pair], bf16_from_float(static_cast<float>(pair + 1))) << pair;
  }
}

TEST(PoolGroup, SequentialSumThenDivide) {
  const std::vector<Bf16> m0 = {bf16_from_float(1), bf16_from_float(256)};
  const std::vector<Bf16> m1 = {bf16_from_float(2), bf16_from_float(1)};
  const std::vector<Bf16> m2 = {bf16_from_float(3), bf16_from_float(1)};
  const std::vector<Bf16> m3 = {bf16_from_float(4), bf16_from_float(-256)};
  const Bf16* members[4] = {m0.data(), m1.data(), m2.data(), m3.data()};
  std::vector<Bf16> out(2);
  pool_group(members, 4, 2, out.data());
  EXPECT_EQ(out[0], bf16_from_float(2.5f));  // (1 + 2 + 3 + 4) / 4
  EXPECT_EQ(out[1], bf16_from_float(0.5f));  // ((256 + 1) + 1) - 256 = 2 in binary32, / 4
}

TEST(CosSinTable, RowsHoldCosinesThenSines) {
  const int64_t rd = 8;
  const std::vector<Bf16> table = make_cos_sin_table(10000.0, rd, 3);
  ASSERT_EQ(table.size(), 24u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(table[i], bf16_from_float(1.0f));      // cos 0
    EXPECT_EQ(table[4 + i], bf16_from_float(0.0f));  // sin 0
  }
  EXPECT_EQ(table[2 * rd + 0], bf16_from_float(static_cast<float>(std::cos(2.0))));  // theta_0 = 1
  EXPECT_EQ(table[2 * rd + 4], bf16_from_float(static_cast<float>(std::sin(2.0))));
  EXPECT_EQ(table[1 * rd + 1], bf16_from_float(static_cast<float>(std::cos(std::pow(10000.0, -0.25)))));
}

}  // namespace
}  // namespace qsa
