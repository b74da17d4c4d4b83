// The rows of norm_tie_rows.hpp. Each of the three alternatives moves a binary32 result by an ulp,
// which shows in the bf16 result only where that result lies on a bf16 rounding tie: about one
// element in 2^16, so drawn rows almost never show it. Built instead:
//
// - Every square of the row is an integer multiple of one unit u = 2^(2h) and their sum S is
//   2^24 + Q units with Q a multiple of 4 below 2^24 - 2, so every sum of squares is exact in
//   binary32 except where the row's rounding gadget puts a rounding: x_0^2 = 2^24 units,
//   x_1^2 = x_(D/2+1)^2 = 1 unit, x_(D/2) = 0, every other square a multiple of 4 units. SPEC
//   6.2's tree adds x_0^2 + x_1^2 = 2^24 + 1 (a tie, kept at 2^24) and its top level
//   (2^24 + Q') + (1 + Q'') (a tie again, kept at 2^24 + Q); the halving tree adds x_0^2 +
//   x_(D/2)^2 and x_1^2 + x_(D/2+1)^2 = 2 exactly and ends at 2^24 + Q + 2: the next binary32
//   value. So the recipe's sum is S and the halving tree's the next float, by construction.
// - One pass-through element k holds x_k = n_k u^(1/2) (n_k even); the rest of Q is split into
//   squares of even integers of at most 8 significant bits (bf16 values) on the free elements.
// - Q is solved for: the S whose rrms puts (x_k * rrms) * (1 + w_k) on a bf16 tie, then the
//   neighbouring multiples of 4 are tried, each result one binary32 ulp from the last, until the
//   alternative's result (from the next sum, from x_k / rms, or from x_k * (rrms * (1 + w_k)))
//   rounds to another bf16 value than the recipe's.
// Built with -ffp-contract=off (traces/CMakeLists.txt): the products below are the recipe's.

#include "norm_tie_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace qsa::traces {
namespace {

using A = NumericAlternative;

constexpr int64_t kTop = int64_t{1} << 24;  // 2^24 units: x_0^2
constexpr int kAttempts = 64;
constexpr int kWindow = 12;  // multiples of 4 tried on each side of the solved Q

struct Rrms {
  float rms = 0;   // sqrt(mean + eps)
  float rrms = 0;  // 1 / rms
};
Rrms rrms_of(float sum_of_squares, const NormSetting& s) {
  const float mean = sum_of_squares / static_cast<float>(s.head_dim);
  const float rms = std::sqrt(mean + s.eps);
  return {rms, 1.0f / rms};
}

// The largest integer with at most 8 significant bits not above n (n >= 1).
int64_t bf16_integer_below(int64_t n) {
  int shift = 0;
  while ((n >> shift) >= 256) ++shift;
  return (n >> shift) << shift;
}

int64_t integer_sqrt(int64_t n) {
  auto r = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r;
}

// The bf16 value n * 2^h (n < 2^24 with at most 8 significant bits).
Bf16 scaled(int64_t n, int h) { return bf16_from_float(std::ldexp(static_cast<float>(n), h)); }

// x_k's bf16 result under the recipe and under the alternative, for the sum of squares S units.
struct Results {
  Bf16 recipe = 0;
  Bf16 alternative = 0;
};
Results results(A alternative, float sum, float next_sum, float x, float gain, const NormSetting& s) {
  const Rrms r = rrms_of(sum, s);
  Results out;
  out.recipe = bf16_from_float((x * r.rrms) * gain);
  switch (alternative) {
    case A::kSumOfSquaresHalvingTree:
      out.alternative = bf16_from_float((x * rrms_of(next_sum, s).rrms) * gain);
      break;
    case A::kNormDividesByRms:
      out.alternative = bf16_from_float((x / r.rms) * gain);
      break;
    default:
      out.alternative = bf16_from_float(x * (r.rrms * gain));
      break;
  }
  return out;
}

// The row for (k, n_k, Q), or empty when the free elements cannot hold the rest of Q.
std::vector<Bf16> build_row(const NormSetting& s, int h, int64_t k, int64_t n_k, int64_t q) {
  const int64_t d = s.head_dim;
  std::vector<Bf16> x(static_cast<size_t>(d), 0);
  x[0] = scaled(int64_t{1} << 12, h);
  x[1] = scaled(1, h);
  x[static_cast<size_t>(d / 2 + 1)] = scaled(1, h);
  x[static_cast<size_t>(k)] = scaled(n_k, h);
  int64_t rest = (q - n_k * n_k) / 4;  // squares of 2m: 4 m^2 units
  for (int64_t e = 2; e < d && rest > 0; ++e) {
    if (e == d / 2 || e == d / 2 + 1 || e == k) continue;
    const int64_t m = bf16_integer_below(integer_sqrt(rest));
    x[static_cast<size_t>(e)] = scaled(2 * m, h);
    rest -= m * m;
  }
  if (rest != 0) x.clear();
  return x;
}

}  // namespace

std::vector<std::vector<Bf16>> norm_tie_rows(NumericAlternative alternative, const NormSetting& s, Rng* rng,
                                             size_t wanted) {
  std::vector<std::vector<Bf16>> found;
  const int64_t d = s.head_dim;
  if (d < 8 || (d & (d - 1)) != 0 || s.weight == nullptr) return found;
  // The elements RoPE passes through, besides the gadget's.
  std::vector<int64_t> columns;
  for (int64_t e = std::max<int64_t>(s.rotary_dim, 2); e < d; ++e) {
    const float gain = 1.0f + float_from_bf16(s.weight[e]);
    if (e != d / 2 && e != d / 2 + 1 && std::isfinite(gain) && gain != 0.0f) columns.push_back(e);
  }
  if (columns.empty()) return found;
  // The unit 2^(2h): a sum of 2^24 .. 2^25 units is a mean square near 1 (2h even, so x_0 = 2^12 * 2^h).
  const int h = static_cast<int>(std::floor((std::log2(static_cast<double>(d)) - 24.0) / 2.0));
  const float unit = std::ldexp(1.0f, 2 * h);
  std::vector<Bf16> ref(static_cast<size_t>(d)), alt(static_cast<size_t>(d));
  for (int attempt = 0; attempt < kAttempts && found.size() < wanted; ++attempt) {
    const int64_t k = columns[rng->below(columns.size())];
    const float gain = 1.0f + float_from_bf16(s.weight[k]);
    const int64_t n_k = (128 + static_cast<int64_t>(rng->below(128))) * 8;  // even, 8 significant bits
    const float x = std::ldexp(static_cast<float>(n_k), h);
    // A random sum, the bf16 tie nearest its result, and the sum that puts the result there.
    const int64_t q0 = n_k * n_k + 4 * static_cast<int64_t>(rng->below(static_cast<uint64_t>((kTop - n_k * n_k) / 4 - 1)));
    const float y0 = (x * rrms_of(static_cast<float>(kTop + q0) * unit, s).rrms) * gain;
    uint32_t bits = 0;
    std::memcpy(&bits, &y0, sizeof bits);
    bits = (bits & 0xFFFF0000u) | 0x8000u;
    float tie = 0;
    std::memcpy(&tie, &bits, sizeof tie);
    const double rrms = static_cast<double>(tie) / (static_cast<double>(x) * gain);
    const double sum = static_cast<double>(d) * (1.0 / (rrms * rrms) - static_cast<double>(s.eps));
    const auto q_solved = static_cast<int64_t>(std::llround(sum / static_cast<double>(unit))) - kTop;
    for (int i = 0; i <= 2 * kWindow; ++i) {
      const int64_t q = (q_solved / 4 + (i % 2 == 0 ? i / 2 : -(i + 1) / 2)) * 4;  // 0, -1, +1, -2, ...
      if (q < n_k * n_k || q >= kTop - 2) continue;
      const Results r = results(alternative, static_cast<float>(kTop + q) * unit,
                                static_cast<float>(kTop + q + 2) * unit, x, gain, s);
      if (r.recipe == r.alternative) continue;
      std::vector<Bf16> row = build_row(s, h, k, n_k, q);
      if (row.empty()) break;
      rms_norm(row.data(), s.weight, d, s.eps, ref.data());
      rms_norm_with(alternative, row.data(), s.weight, d, s.eps, alt.data());
      if (ref[static_cast<size_t>(k)] != alt[static_cast<size_t>(k)]) found.push_back(std::move(row));
      break;
    }
  }
  return found;
}

}  // namespace qsa::traces
