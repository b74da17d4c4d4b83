// Content versions 4 and 5: inputs that separate each numerical alternative of SPEC 6 from the
// recipe (traces/alternative_content.hpp, docs/content.md "Numerical alternatives"). Every candidate is
// verified with the reference's recipe and the alternative's own function before it is kept, so
// the shapes below only make the search short. Built with -ffp-contract=off (traces/CMakeLists.txt).

#include "qsa/traces/alternative_content.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "norm_tie_rows.hpp"
#include "qsa/traces/content.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa::traces {
namespace {

using A = NumericAlternative;

constexpr uint64_t kTinyRopeStream = 0x746E79;  // "tny"
constexpr uint64_t kPoolStream = 0x706C74;      // "plt": pool tuples and planted groups
constexpr uint64_t kNormStream = 0x6E726D;      // "nrm"
constexpr uint64_t kAltRowStream = 0x616C74;    // "alt": which query rows are alternative rows
constexpr uint64_t kTieStream = 0x746965;       // "tie": version 5's built norm rows
constexpr size_t kInputsPerAlternative = 4;
// Alternative query rows per 64 plain rows (per head), besides the rows at tiny RoPE positions.
constexpr uint64_t kNormRowsPer64 = 4;

// The norm alternatives searched for from the boundary rows (version 4). kMeanReciprocalMultiply is
// provably the recipe (D is a power of two); kSumOfSquaresSequential shows on plain rows
// (docs/planted-bugs.md); the four below are built rather than searched (version 5).
constexpr A kNormSearched[] = {A::kRsqrtSingleRounding};
// Built by norm_tie_rows (version 5): each moves a binary32 result by an ulp, which a drawn row
// shows about once in 2^16 elements (the fused sum of squares only with D = 32 and a subnormal eps).
constexpr A kNormBuilt[] = {A::kSumOfSquaresHalvingTree, A::kSumOfSquaresFma, A::kNormDividesByRms,
                            A::kNormScaleReassociated};

size_t index_of(A a) { return static_cast<size_t>(a); }

Bf16 bits_of_magnitude(int exponent, uint64_t mantissa, bool negative) {
  // A normal bf16 value (1 + mantissa/128) * 2^exponent.
  const auto biased = static_cast<uint32_t>(exponent + 127);
  return static_cast<Bf16>((negative ? 0x8000u : 0u) | biased << 7 | (mantissa & 0x7Fu));
}

// The value's position on binary32's subnormal grid (2^-149 units), signed; for |v| < 2^-126.
int64_t subnormal_units(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const auto magnitude = static_cast<int64_t>(bits & 0x7FFFFFFFu);
  return (bits & 0x80000000u) != 0 ? -magnitude : magnitude;
}

Bf16 truncate_to_bf16(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return static_cast<Bf16>(bits >> 16);
}

}  // namespace

bool tiny_rope_position(uint64_t seed, int64_t position) {
  return Rng::mix(hash_words(seed, kTinyRopeStream, static_cast<uint64_t>(position))) % 16 == 0;
}

std::array<Bf16, 2> tiny_rope_entries(uint64_t seed) {
  Rng rng(hash_words(seed, kTinyRopeStream));
  // Odd significands: a product with a bf16 value of odd significand below 2^-15 then has its
  // lowest bit at 2^-150, half a step of binary32's subnormal grid.
  const Bf16 c = bits_of_magnitude(-120, rng.below(64) * 2 + 1, rng.chance(1, 2));
  const Bf16 s = bits_of_magnitude(-120, rng.below(64) * 2 + 1, rng.chance(1, 2));
  return {c, s};
}

void add_tiny_rope_entries(uint64_t seed, int64_t rotary_dim, int64_t max_position, std::vector<Bf16>* table) {
  const int64_t hp = rotary_dim / 2;
  if (hp < 1) return;
  const std::array<Bf16, 2> entries = tiny_rope_entries(seed);
  for (int64_t p = 0; p < max_position; ++p) {
    if (!tiny_rope_position(seed, p)) continue;
    (*table)[static_cast<size_t>(p * rotary_dim)] = entries[0];
    (*table)[static_cast<size_t>(p * rotary_dim + hp)] = entries[1];
  }
}

AlternativeContent::AlternativeContent(const ScenarioConfig& config, const StepConfig& step,
                                       const std::vector<Bf16>& boundary_rows, int boundary_exponent)
    : config_(config), w_q_(step.w_q), eps_(step.eps) {
  found_.resize(numeric_alternatives().size());
  if (config.content_version < 4 || config.head_dim <= 0 || config.head_dim > 512) return;
  const int64_t d = config.head_dim;
  // Planted key elements: past the rotary ones where the row has room (the norm alone lies
  // between them and the stored row), never on the origin digits.
  first_key_element_ = std::max<int64_t>(kOriginElements, config.rotary_dim);
  if (first_key_element_ + 6 > d) first_key_element_ = kOriginElements;
  search_pool_tuples(config.seed);
  // An fp8 store rounds a one-ulp bf16 difference away almost always, so fp8 scenarios leave the
  // norm and RoPE rows to the bf16 ones.
  if (config.store_dtype != StoreDtype::kBf16 || static_cast<int64_t>(w_q_.size()) < d) return;
  // Version 4's norm and RoPE rows are derived from the boundary rows.
  if (boundary_exponent != 0 && !boundary_rows.empty()) {
    search_norm_rows(config.seed, boundary_rows, boundary_exponent);
    search_rope_rows(config.seed, boundary_rows);
  }
  if (config.content_version >= 5) build_tie_rows(config.seed);
}

const std::vector<std::vector<Bf16>>& AlternativeContent::inputs(NumericAlternative alternative) const {
  return found_[index_of(alternative)];
}

std::vector<NumericAlternative> AlternativeContent::planted() const {
  std::vector<NumericAlternative> out;
  for (const NumericAlternativeInfo& info : numeric_alternatives())
    if (!found_[index_of(info.alternative)].empty()) out.push_back(info.alternative);
  return out;
}

void AlternativeContent::search_pool_tuples(uint64_t seed) {
  const int64_t c = config_.compress_ratio;
  if (c < 2 || c > 1024) return;
  Rng rng(hash_words(seed, kPoolStream, static_cast<uint64_t>(c)));
  std::vector<float> members(static_cast<size_t>(c));
  auto keep = [&](A a) {
    std::vector<Bf16> tuple(static_cast<size_t>(c));
    for (int64_t i = 0; i < c; ++i) tuple[i] = bf16_from_float(members[i]);
    found_[index_of(a)].push_back(std::move(tuple));
  };
  for (A a : {A::kPoolReciprocalMultiply, A::kPoolPairwiseTree, A::kPoolReverseOrder}) {
    for (int attempt = 0; attempt < 1000 && found_[index_of(a)].size() < kInputsPerAlternative; ++attempt) {
      if (a == A::kPoolReciprocalMultiply) {
        // A sum whose quotient lies near a bf16 tie: s close to (tie * C), split into three bf16
        // chunks (24 significant bits, 8 each) so that every order adds it exactly; zeros after.
        if (c < 3 || (c & (c - 1)) == 0) break;  // 1/C is exact: the product is the quotient
        const Bf16 base = bits_of_magnitude(static_cast<int>(rng.range(-2, 1)), rng.below(128), rng.chance(1, 2));
        uint32_t bits = static_cast<uint32_t>(base) << 16 | 0x8000u;
        float tie = 0;
        std::memcpy(&tie, &bits, sizeof tie);
        float s = static_cast<float>(static_cast<double>(tie) * static_cast<double>(c));
        for (int64_t k = rng.range(-16, 16); k != 0; k += k > 0 ? -1 : 1)
          s = std::nextafter(s, k > 0 ? INFINITY : -INFINITY);
        std::fill(members.begin(), members.end(), 0.0f);
        float rest = s;
        for (int chunk = 0; chunk < 3; ++chunk) {
          members[chunk] = chunk < 2 ? float_from_bf16(truncate_to_bf16(rest)) : rest;
          rest = rest - members[chunk];
        }
        if (rest != 0.0f || float_from_bf16(bf16_from_float(members[2])) != members[2]) continue;
      } else {
        // Cancellation: +A and -A at two members, small values elsewhere, so that where the small
        // ones are added (next to A, or after it cancelled) decides what is left of them.
        for (float& m : members)
          m = float_from_bf16(bits_of_magnitude(static_cast<int>(rng.range(-6, 1)), rng.below(128), rng.chance(1, 2)));
        const float big = float_from_bf16(bits_of_magnitude(static_cast<int>(rng.range(14, 20)), rng.below(128), false));
        const auto i = static_cast<size_t>(rng.below(static_cast<uint64_t>(c)));
        auto j = static_cast<size_t>(rng.below(static_cast<uint64_t>(c - 1)));
        if (j >= i) ++j;
        members[i] = big;
        members[j] = -big;
      }
      if (pool_element_with(a, members.data(), c) != pool_element(members.data(), c)) keep(a);
    }
    if (!found_[index_of(a)].empty()) pool_alternatives_.push_back(a);
  }
}

void AlternativeContent::search_norm_rows(uint64_t seed, const std::vector<Bf16>& boundary_rows,
                                          int boundary_exponent) {
  // Near-boundary rows: a boundary row (its norm results exactly on bf16 ties when rrms is
  // 2^-k) scaled to 2^-1 ... 2^-3 of its size, where eps is no longer absorbed by the mean and
  // rrms is a few ulps off 2^-k'; for the sum-of-squares orders also one small element whose
  // square rounds into the sum. Each result then lies a few binary32 ulps from a tie, where
  // another rounding of rrms or of the products shows in the bf16 bits.
  const int64_t d = config_.head_dim;
  const int64_t rows = static_cast<int64_t>(boundary_rows.size()) / d;
  Rng rng(hash_words(seed, kNormStream));
  std::vector<Bf16> x(static_cast<size_t>(d)), ref(static_cast<size_t>(d)), alt(static_cast<size_t>(d));
  const int64_t attempts = std::max<int64_t>(32, 8192 / d);
  for (int64_t attempt = 0; attempt < attempts; ++attempt) {
    bool missing = false;
    for (A a : kNormSearched) missing = missing || found_[index_of(a)].size() < 2;
    if (!missing) break;
    const Bf16* row = boundary_rows.data() + static_cast<size_t>(rng.below(static_cast<uint64_t>(rows)) * d);
    const int shift = rng.chance(1, 2) ? 0 : -static_cast<int>(rng.range(1, 3));
    for (int64_t e = 0; e < d; ++e) x[e] = bf16_from_float(std::ldexp(float_from_bf16(row[e]), shift));
    if (rng.chance(3, 4)) {
      // One or two small elements (the second half a row away: the halving tree pairs them) whose
      // squares the recipe's tree absorbs, or rounds on a tie, where another order does not.
      const auto e = static_cast<int64_t>(rng.below(static_cast<uint64_t>(d)));
      const int exponent = boundary_exponent + shift - 5 - static_cast<int>(rng.range(2, 12));
      const uint64_t mantissa = rng.chance(1, 2) ? 0 : rng.below(128);
      x[e] = bits_of_magnitude(exponent, mantissa, rng.chance(1, 2));
      if (rng.chance(1, 2)) x[(e + d / 2) % d] = bits_of_magnitude(exponent, mantissa, rng.chance(1, 2));
    }
    rms_norm(x.data(), w_q_.data(), d, eps_, ref.data());
    for (A a : kNormSearched) {
      if (found_[index_of(a)].size() >= 2) continue;
      rms_norm_with(a, x.data(), w_q_.data(), d, eps_, alt.data());
      if (alt != ref) found_[index_of(a)].push_back(x);
    }
  }
  for (A a : kNormSearched)
    if (!found_[index_of(a)].empty()) norm_alternatives_.push_back(a);
}

void AlternativeContent::build_tie_rows(uint64_t seed) {
  const NormSetting setting{config_.head_dim, config_.rotary_dim, eps_, w_q_.data()};
  for (A a : kNormBuilt) {
    Rng rng(hash_words(seed, kTieStream, index_of(a)));
    found_[index_of(a)] = norm_tie_rows(a, setting, &rng, 2);
    if (!found_[index_of(a)].empty()) norm_alternatives_.push_back(a);
  }
}

void AlternativeContent::search_rope_rows(uint64_t seed, const std::vector<Bf16>& boundary_rows) {
  // Pair 0 at a tiny position: (c, s) about 2^-120. With a = y_0, b = y_hp in [2^-16, 2^-15) of
  // odd significand, each product lies in [2^-136, 2^-134) with its lowest bit at 2^-150: rounded
  // to binary32 it moves half a subnormal step. Sought: a and b whose rounded products combine to
  // the bf16 tie at 2^-134 (32768 steps) or next to it, where the fused result, rounded once, falls
  // on the other side.
  const int64_t d = config_.head_dim;
  const int64_t hp = config_.rotary_dim / 2;
  if (hp < 1 || hp >= d) return;
  const std::array<Bf16, 2> entries = tiny_rope_entries(seed);
  const float c = float_from_bf16(entries[0]);
  const float s = float_from_bf16(entries[1]);
  const int64_t rows = static_cast<int64_t>(boundary_rows.size()) / d;
  std::vector<Bf16> x(static_cast<size_t>(d)), y(static_cast<size_t>(d));
  std::vector<float> squares(static_cast<size_t>(d));
  for (int64_t r = 0; r < std::min<int64_t>(rows, 8) && found_[index_of(A::kRopeFma)].size() < kInputsPerAlternative;
       ++r) {
    std::copy(boundary_rows.begin() + r * d, boundary_rows.begin() + (r + 1) * d, x.begin());
    x[0] = 0;
    x[hp] = 0;
    for (int64_t e = 0; e < d; ++e) squares[e] = float_from_bf16(x[e]) * float_from_bf16(x[e]);
    const float rrms = rms_norm_rrms(pairwise_sum(squares.data(), d), d, eps_);
    // The x giving each y in [2^-16, 2^-15) with an odd significand, for elements 0 and hp.
    auto candidates = [&](int64_t element) {
      std::vector<std::pair<Bf16, float>> out;  // (x, y)
      const float gain = rrms * (1.0f + float_from_bf16(w_q_[element]));
      // A zero, NaN or infinite gain (special norm weights, docs/content.md) reaches no y there.
      if (!std::isfinite(gain) || gain == 0.0f) return out;
      const float x_scale = std::ldexp(1.0f, -15) / std::fabs(gain);
      if (!std::isnormal(x_scale)) return out;
      const int center = std::ilogb(x_scale);
      for (int e = center - 2; e <= center + 1; ++e)
        for (uint64_t m = 0; m < 128; ++m)
          for (bool negative : {false, true}) {
            const Bf16 xv = bits_of_magnitude(e, m, negative);
            const Bf16 yv = bf16_from_float(rms_norm_scale(xv, rrms, w_q_[element]));
            const float a = std::fabs(float_from_bf16(yv));
            if (a >= std::ldexp(1.0f, -16) && a < std::ldexp(1.0f, -15) && (yv & 1u) != 0)
              out.emplace_back(xv, float_from_bf16(yv));
          }
      return out;
    };
    const auto as = candidates(0);
    const auto bs = candidates(hp);
    // out_0 = a*c - b*s and out_hp = b*c + a*s: index b by its rounded product's grid position.
    std::unordered_map<int64_t, size_t> by_bs, by_bc;
    for (size_t k = 0; k < bs.size(); ++k) {
      by_bs.emplace(subnormal_units(bs[k].second * s), k);
      by_bc.emplace(subnormal_units(bs[k].second * c), k);
    }
    for (const auto& [xa, a] : as) {
      if (found_[index_of(A::kRopeFma)].size() >= kInputsPerAlternative) break;
      const int64_t ac = subnormal_units(a * c);
      const int64_t as_units = subnormal_units(a * s);
      for (int64_t target : {0, 1, -1, 32768, -32768, 32769, -32769}) {
        for (int output = 0; output < 2; ++output) {
          const auto& index = output == 0 ? by_bs : by_bc;
          const auto it = index.find(output == 0 ? ac - target : target - as_units);
          if (it == index.end()) continue;
          const float b = bs[it->second].second;
          if (rope_pair_fma(a, b, c, s) == rope_pair(a, b, c, s)) continue;
          // The row: its norm must give exactly a and b (their squares vanish in the tree).
          x[0] = xa;
          x[hp] = bs[it->second].first;
          rms_norm(x.data(), w_q_.data(), d, eps_, y.data());
          if (float_from_bf16(y[0]) == a && float_from_bf16(y[hp]) == b) {
            found_[index_of(A::kRopeFma)].push_back(x);
            break;
          }
        }
        if (found_[index_of(A::kRopeFma)].size() >= kInputsPerAlternative) break;
      }
    }
  }
}

bool AlternativeContent::key_planted(const Origin& o) const {
  if (pool_alternatives_.empty() || o.attempt != 0 || o.kind == OriginKind::kPadding) return false;
  const uint64_t group = static_cast<uint64_t>(o.position / config_.compress_ratio);
  return Rng::mix(hash_words(config_.seed ^ kPoolStream, static_cast<uint64_t>(o.kind) << 56 ^ static_cast<uint64_t>(o.id),
                             group)) %
             8 ==
         0;
}

void AlternativeContent::plant_key(const Origin& o, Bf16* key) const {
  if (!key_planted(o)) return;
  const uint64_t group = static_cast<uint64_t>(o.position / config_.compress_ratio);
  const auto member = static_cast<size_t>(o.position % config_.compress_ratio);
  const uint64_t h =
      hash_words(config_.seed ^ kPoolStream, static_cast<uint64_t>(o.kind) << 56 ^ static_cast<uint64_t>(o.id), group, 1);
  int64_t element = first_key_element_;
  for (size_t j = 0; j < pool_alternatives_.size(); ++j) {
    const auto& tuples = found_[index_of(pool_alternatives_[j])];
    for (uint64_t copy = 0; copy < 2 && element < config_.head_dim; ++copy, ++element)
      key[element] = tuples[Rng::mix(h + 2 * j + copy) % tuples.size()][member];
  }
}

bool AlternativeContent::is_query_row(const Origin& o, uint64_t query_hash) const {
  if (o.kind == OriginKind::kPadding) return false;
  const uint64_t r = Rng::mix(query_hash ^ kAltRowStream);
  if (!found_[index_of(A::kRopeFma)].empty() && (r >> 40 & 1u) != 0 &&
      tiny_rope_position(config_.seed, model_position(config_, o)[0]))
    return true;
  return !norm_alternatives_.empty() && r % 64 < kNormRowsPer64;
}

NumericAlternative AlternativeContent::query_alternative(const Origin& o, uint64_t query_hash) const {
  const uint64_t r = Rng::mix(query_hash ^ kAltRowStream);
  const bool rope = !found_[index_of(A::kRopeFma)].empty() && (r >> 40 & 1u) != 0 &&
                    tiny_rope_position(config_.seed, model_position(config_, o)[0]);
  return rope ? A::kRopeFma : norm_alternatives_[(r >> 8) % norm_alternatives_.size()];
}

void AlternativeContent::query_row(const Origin& o, uint64_t query_hash, Bf16* out) const {
  const uint64_t r = Rng::mix(query_hash ^ kAltRowStream);
  const auto& rows = found_[index_of(query_alternative(o, query_hash))];
  const std::vector<Bf16>& row = rows[(r >> 16) % rows.size()];
  // Negated for half of the rows: every alternative here is symmetric in the sign.
  const auto sign = static_cast<Bf16>((r >> 41 & 1u) != 0 ? 0x8000u : 0u);
  for (int64_t e = 0; e < config_.head_dim; ++e) out[e] = static_cast<Bf16>(row[e] ^ sign);
}

}  // namespace qsa::traces
