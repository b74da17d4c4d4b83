// The rows of norm_tie_rows.hpp. Each of these alternatives moves a binary32 result by an ulp, which
// shows in the bf16 result only where that result lies on a bf16 rounding tie: about one element
// in 2^16, so drawn rows almost never show it. Built instead, around a gadget:
//
// - Every square of the row is an integer multiple of a unit u and every sum of squares stays
//   below 2^24 or 2^25 units, so every sum is exact in binary32 except where the gadget puts a
//   rounding that the alternative makes differently; the recipe's sum is S and the alternative's
//   the next binary32 value (or S itself, for the alternatives that differ after the sum).
// - The halving gadget (u = 2^(2h)): x_0^2 = 2^24 units and x_1^2 = x_(D/2+1)^2 = 1 unit. SPEC
//   6.2's tree adds x_0^2 + x_1^2 = 2^24 + 1 (a tie, kept at 2^24) and its top level once more
//   (another tie), ending at 2^24 + Q; the halving tree adds x_1^2 + x_(D/2+1)^2 = 2 exactly and
//   ends at 2^24 + Q + 2: the next binary32 value. The division and the reassociated scale use the
//   same rows (their difference comes after the sum).
// - The fused gadget (u = 2^-144, D = 32 so that mean = S / D stays on binary32's grid of
//   2^-149): x_0 = 182 * 2^-80, whose square 16.17 * 2^-149 rounds to 16 * 2^-149 = u / 2, and
//   x_1^2 = B units with B in [2^23, 2^24) (a 16-bit significand, so even). The recipe adds u / 2
//   to B: a tie, kept at B; fma(x_0, x_0, B) rounds B + 16.17 * 2^-149 once, to B + 1 unit.
//   Only an eps below about 2^-126 leaves this visible in mean + eps.
// - One pass-through element k holds x_k = n_k 2^e; the rest of the sum is split into squares of
//   integers of at most 8 significant bits (bf16 values) on the free elements.
// - The sum is solved for: the S whose rrms puts (x_k * rrms) * (1 + w_k) on a bf16 tie, then its
//   neighbours are tried, each result one binary32 ulp from the last, until the alternative's
//   result rounds to another bf16 value than the recipe's.
// Built with -ffp-contract=off (traces/CMakeLists.txt): the products below are the recipe's.

#include "norm_tie_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace qsa::traces {
namespace {

using A = NumericAlternative;

constexpr int kAttempts = 64;
constexpr int kWindow = 12;  // sums tried on each side of the solved one

// The layout of a row's sum of squares, in units u = 2^unit_exponent.
struct Gadget {
  int unit_exponent = 0;
  int element_exponent = 0;  // every other element is n * 2^element_exponent: a square of n^2 * multiple units
  int64_t multiple = 1;
  int64_t fixed = 0;  // the recipe's sum of the gadget's squares
  int64_t limit = 0;  // every sum stays below this: exact in binary32
  int64_t next = 0;   // the alternative's sum lies this far above the recipe's (0: the same sum)
  std::vector<std::pair<int64_t, Bf16>> elements;
  std::vector<int64_t> reserved;  // the gadget's elements and the zeros it needs
};

Bf16 bf16_of(int64_t n, int exponent) { return bf16_from_float(std::ldexp(static_cast<float>(n), exponent)); }

Gadget halving_gadget(int64_t d, A alternative) {
  // A sum of 2^24 .. 2^25 units is a mean square near 1: 2h = log2(D) - 24, rounded down to even.
  const int h = static_cast<int>(std::floor((std::log2(static_cast<double>(d)) - 24.0) / 2.0));
  Gadget g;
  g.unit_exponent = 2 * h;
  g.element_exponent = h + 1;
  g.multiple = 4;
  g.fixed = int64_t{1} << 24;
  g.limit = int64_t{1} << 25;
  g.next = alternative == A::kSumOfSquaresHalvingTree ? 2 : 0;
  g.elements = {{0, bf16_of(int64_t{1} << 12, h)}, {1, bf16_of(1, h)}, {d / 2 + 1, bf16_of(1, h)}};
  g.reserved = {0, 1, d / 2, d / 2 + 1};
  return g;
}

Gadget fused_gadget(Rng* rng) {
  const auto b = static_cast<int64_t>(182 + rng->below(74));  // B = b^2 * 2^8 units in [2^23, 2^24)
  Gadget g;
  g.unit_exponent = -144;
  g.element_exponent = -72;
  g.multiple = 1;
  g.fixed = b * b * 256;
  g.limit = int64_t{1} << 24;
  g.next = 1;
  g.elements = {{0, bf16_of(182, -80)}, {1, bf16_of(b, -68)}};
  g.reserved = {0, 1};
  return g;
}

float rrms_of(float sum_of_squares, const NormSetting& s, float* rms) {
  const float mean = sum_of_squares / static_cast<float>(s.head_dim);
  *rms = std::sqrt(mean + s.eps);
  return 1.0f / *rms;
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

// Whether x_k's bf16 result under the alternative differs from the recipe's, the recipe's sum of
// squares being `units` units.
bool differs(A alternative, const Gadget& g, int64_t units, float x, float gain, const NormSetting& s) {
  const float unit = std::ldexp(1.0f, g.unit_exponent);
  float rms = 0;
  const float rrms = rrms_of(static_cast<float>(units) * unit, s, &rms);
  const Bf16 recipe = bf16_from_float((x * rrms) * gain);
  switch (alternative) {
    case A::kNormDividesByRms:
      return bf16_from_float((x / rms) * gain) != recipe;
    case A::kNormScaleReassociated:
      return bf16_from_float(x * (rrms * gain)) != recipe;
    default:
      return bf16_from_float((x * rrms_of(static_cast<float>(units + g.next) * unit, s, &rms)) * gain) != recipe;
  }
}

// The row for (k, n_k, q), or empty when the free elements cannot hold the rest of q.
std::vector<Bf16> build_row(const NormSetting& s, const Gadget& g, int64_t k, int64_t n_k, int64_t q) {
  const int64_t d = s.head_dim;
  std::vector<Bf16> x(static_cast<size_t>(d), 0);
  for (const auto& [e, v] : g.elements) x[static_cast<size_t>(e)] = v;
  x[static_cast<size_t>(k)] = bf16_of(n_k, g.element_exponent);
  int64_t rest = q / g.multiple - n_k * n_k;
  for (int64_t e = 0; e < d && rest > 0; ++e) {
    if (e == k || std::find(g.reserved.begin(), g.reserved.end(), e) != g.reserved.end()) continue;
    const int64_t m = bf16_integer_below(integer_sqrt(rest));
    x[static_cast<size_t>(e)] = bf16_of(m, g.element_exponent);
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
  const bool fused = alternative == A::kSumOfSquaresFma;
  if (fused && d != 32) return found;  // mean = S / D must stay on the grid of 2^-149
  const Gadget g = fused ? fused_gadget(rng) : halving_gadget(d, alternative);
  // The elements RoPE passes through, besides the gadget's, with a finite non-zero 1 + w.
  std::vector<int64_t> columns;
  for (int64_t e = s.rotary_dim; e < d; ++e) {
    const float gain = 1.0f + float_from_bf16(s.weight[e]);
    if (std::find(g.reserved.begin(), g.reserved.end(), e) == g.reserved.end() && std::isfinite(gain) && gain != 0.0f)
      columns.push_back(e);
  }
  const float unit = std::ldexp(1.0f, g.unit_exponent);
  float rms = 0;
  const float rrms_low = rrms_of(static_cast<float>(g.fixed) * unit, s, &rms);
  if (columns.empty() || rrms_of(static_cast<float>(g.limit - 1) * unit, s, &rms) == rrms_low)
    return found;  // no element to plant, or eps swamps every sum the gadget allows
  // x_k = n_k 2^e with n_k of 8 significant bits, its square at most half of the room left.
  int shift = 0;
  while ((int64_t{255} << (shift + 1)) * (int64_t{255} << (shift + 1)) * g.multiple <= (g.limit - g.fixed) / 2) ++shift;
  std::vector<Bf16> ref(static_cast<size_t>(d)), alt(static_cast<size_t>(d));
  for (int attempt = 0; attempt < kAttempts && found.size() < wanted; ++attempt) {
    const int64_t k = columns[rng->below(columns.size())];
    const float gain = 1.0f + float_from_bf16(s.weight[k]);
    const int64_t n_k = (128 + static_cast<int64_t>(rng->below(128))) << shift;
    const float x = std::ldexp(static_cast<float>(n_k), g.element_exponent);
    const int64_t q_min = n_k * n_k * g.multiple;
    const int64_t q_room = (g.limit - g.next - g.fixed - q_min) / g.multiple;
    if (q_room < 2) continue;
    // A random sum, the bf16 tie nearest its result, and the sum that puts the result there.
    const int64_t q0 = q_min + g.multiple * static_cast<int64_t>(rng->below(static_cast<uint64_t>(q_room - 1)));
    const float y0 = (x * rrms_of(static_cast<float>(g.fixed + q0) * unit, s, &rms)) * gain;
    uint32_t bits = 0;
    std::memcpy(&bits, &y0, sizeof bits);
    bits = (bits & 0xFFFF0000u) | 0x8000u;
    float tie = 0;
    std::memcpy(&tie, &bits, sizeof tie);
    const double rrms = static_cast<double>(tie) / (static_cast<double>(x) * gain);
    const double sum = static_cast<double>(d) * (1.0 / (rrms * rrms) - static_cast<double>(s.eps));
    const double q_solved = sum / static_cast<double>(unit) - static_cast<double>(g.fixed);
    if (!(q_solved > 0 && q_solved < static_cast<double>(g.limit))) continue;
    const int64_t center = std::llround(q_solved / static_cast<double>(g.multiple));
    for (int i = 0; i <= 2 * kWindow; ++i) {
      const int64_t q = (center + (i % 2 == 0 ? i / 2 : -(i + 1) / 2)) * g.multiple;  // 0, -1, +1, -2, ...
      if (q < q_min || g.fixed + q + g.next >= g.limit) continue;
      if (!differs(alternative, g, g.fixed + q, x, gain, s)) continue;
      std::vector<Bf16> row = build_row(s, g, k, n_k, q);
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
