#include "qsa/traces/content.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "qsa/traces/alternative_content.hpp"
#include "qsa/traces/rng.hpp"

namespace qsa::traces {
namespace {

constexpr uint64_t kKeyStream = 0x6B6579;    // "key"
constexpr uint64_t kQueryStream = 0x717279;  // "qry"
constexpr uint64_t kPositionStream = 0x706F73;
constexpr uint64_t kClassStream = 0x636C73;     // "cls": which class a row of version 2 is
constexpr uint64_t kSpecialStream = 0x737063;   // "spc"
constexpr uint64_t kBoundaryStream = 0x626479;  // "bdy"
// Tie candidates n in [1, 96]; each element takes one near the root mean square the rest of its
// row still needs (32 on average), so the four balancing elements are left with about 4 * 1024.
constexpr int16_t kMaxTieMagnitude = 96;

uint64_t origin_hash(uint64_t seed, uint64_t stream, const Origin& o) {
  return hash_words(seed ^ stream, static_cast<uint64_t>(o.kind) << 56 ^ static_cast<uint64_t>(o.id),
                    static_cast<uint64_t>(o.position), static_cast<uint64_t>(o.attempt));
}

Bf16 small_integer(int64_t v) { return bf16_from_float(static_cast<float>(v)); }

// Values in [-range, range] with full bf16 significands (not a coarse grid), so sums of squares
// and pooled means round, and the order of the arithmetic shows in the bits.
void random_row(Rng& rng, int64_t range, int64_t count, Bf16* out) {
  for (int64_t i = 0; i < count; ++i)
    out[i] = bf16_from_float(static_cast<float>((2.0 * rng.unit() - 1.0) * static_cast<double>(range)));
}

}  // namespace

std::string to_string(const Origin& o) {
  switch (o.kind) {
    case OriginKind::kFamilyPrompt:
      return "prompt family " + std::to_string(o.id) + " position " + std::to_string(o.position);
    case OriginKind::kOwnPrompt:
      return "request " + std::to_string(o.id) + " prompt position " + std::to_string(o.position);
    case OriginKind::kGenerated:
      return "request " + std::to_string(o.id) + " position " + std::to_string(o.position) +
             (o.attempt == 0 ? std::string(" (committed output)")
                             : " (draft rejected in step " + std::to_string(o.attempt - 1) + ")");
    case OriginKind::kPadding:
      return "padding row " + std::to_string(o.position) + " of step " + std::to_string(o.id);
  }
  return "unknown origin";
}

namespace {

// Version 1's rows (and the plain rows of version 2): the origin digits, then values in [-3, 3].
void plain_key(uint64_t seed, const Origin& o, int64_t head_dim, Bf16* out) {
  const int64_t digits[kOriginElements] = {static_cast<int64_t>(o.kind),
                                           (o.id >> 16) & 0xFF,
                                           (o.id >> 8) & 0xFF,
                                           o.id & 0xFF,
                                           (o.position >> 16) & 0xFF,
                                           (o.position >> 8) & 0xFF,
                                           o.position & 0xFF,
                                           (o.attempt >> 8) & 0xFF,
                                           o.attempt & 0xFF};
  for (int64_t i = 0; i < kOriginElements && i < head_dim; ++i) out[i] = small_integer(digits[i]);
  Rng rng(origin_hash(seed, kKeyStream, o));
  if (head_dim > kOriginElements) random_row(rng, 3, head_dim - kOriginElements, out + kOriginElements);
}

uint64_t query_hash(uint64_t seed, const Origin& o, int64_t head) {
  return hash_words(origin_hash(seed, kQueryStream, o), static_cast<uint64_t>(head));
}

void plain_query(uint64_t hash, int64_t head_dim, Bf16* out) {
  Rng rng(hash);
  random_row(rng, 4, head_dim, out);
}

// The class of a row of version 2 from its hash: 1 in 64 special, then `boundary` in 64 boundary.
RowClass class_of(uint64_t hash, uint64_t boundary_per_64) {
  const uint64_t r = Rng::mix(hash ^ kClassStream) % 64;
  if (r < kSpecialRowsPer64) return RowClass::kSpecial;
  if (r < kSpecialRowsPer64 + boundary_per_64) return RowClass::kBoundary;
  return RowClass::kPlain;
}

// Overwrites a few of out[first, head_dim) with special values: mostly subnormals (half of them on
// a rotary pair (i, hp + i), so both RoPE products are tiny), else one infinity, NaN (with
// different payloads: the ring copies bits), max finite (its square overflows), or -0.
void add_special_values(uint64_t hash, int64_t first, int64_t head_dim, int64_t rotary_dim, Bf16* out) {
  Rng rng(hash ^ kSpecialStream);
  const int64_t count = head_dim - first;
  if (count <= 0) return;
  auto element = [&] { return first + static_cast<int64_t>(rng.below(static_cast<uint64_t>(count))); };
  auto sign = [&] { return static_cast<Bf16>(rng.chance(1, 2) ? 0x8000u : 0u); };
  auto subnormal = [&] { return static_cast<Bf16>(sign() | rng.range(1, 0x7F)); };
  const uint64_t kind = rng.below(8);
  if (kind < 4) {
    const int64_t hp = rotary_dim / 2;
    if (kind < 2 && hp > 0 && first < hp) {
      const int64_t i = first + static_cast<int64_t>(rng.below(static_cast<uint64_t>(hp - first)));
      out[i] = subnormal();
      out[i + hp] = subnormal();
    }
    for (int n = 0; n < 3; ++n) out[element()] = subnormal();
    return;
  }
  static constexpr Bf16 kNans[] = {0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x7FFF};
  switch (kind) {
    case 4:
      out[element()] = static_cast<Bf16>(sign() | 0x7F80u);
      break;  // +-infinity
    case 5:
      out[element()] = kNans[rng.below(5)];
      break;
    case 6:
      out[element()] = static_cast<Bf16>(sign() | 0x7F7Fu);
      break;  // +-max finite
    default:
      out[element()] = 0x8000;                               // -0
      out[element()] = static_cast<Bf16>(sign() | 0x0080u);  // +-the smallest normal
      break;
  }
}

// The four-square decomposition of r with every part at most 255 (Lagrange: one exists for every
// r >= 0; the bound can fail only when r > 4 * 255^2). Greedy from the top, a few hundred tries.
bool four_squares(int64_t r, std::array<int64_t, 4>* parts) {
  auto isqrt = [](int64_t v) {
    auto s = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
    while (s * s > v) --s;
    while ((s + 1) * (s + 1) <= v) ++s;
    return s;
  };
  int tries = 0;
  for (int64_t a = std::min<int64_t>(255, isqrt(r)); a >= 0 && r - a * a <= 3 * 255 * 255; --a) {
    const int64_t ra = r - a * a;
    for (int64_t b = std::min<int64_t>(255, isqrt(ra)); b >= 0 && ra - b * b <= 2 * 255 * 255; --b) {
      const int64_t rb = ra - b * b;
      for (int64_t c = std::min<int64_t>(255, isqrt(rb)); c >= 0 && rb - c * c <= 255 * 255; --c) {
        const int64_t d = isqrt(rb - c * c);
        if (d * d == rb - c * c) {
          *parts = {a, b, c, d};
          return true;
        }
        if (++tries > 20000) return false;
      }
    }
  }
  return false;
}

}  // namespace

bool on_bf16_tie(float x) {
  if (!std::isfinite(x)) return false;
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0xFFFFu) == 0x8000u;
}

bool near_bf16_tie(float x) {
  if (!std::isfinite(x)) return false;
  uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const uint32_t low = bits & 0xFFFFu;
  return low == 0x7FFFu || low == 0x8000u || low == 0x8001u;
}

bool on_e4m3_tie(Bf16 x) {
  const double v = float_from_bf16(x);
  if (!std::isfinite(v)) return false;
  const Fp8 q = e4m3_from_bf16(x);
  const double a = float_from_e4m3(q);
  if (std::fabs(a) >= 448.0 || a == v) return false;
  for (int step : {-1, 1}) {
    const int magnitude = (q & 0x7F) + step;
    if (magnitude < 0 || magnitude > 0x7E) continue;
    const double b = float_from_e4m3(static_cast<Fp8>((q & 0x80) | magnitude));
    if (b != a && std::fabs(v - a) == std::fabs(v - b)) return true;
  }
  return false;
}

RowContent::RowContent(const ScenarioConfig& config, const StepConfig& step)
    : seed_(config.seed), head_dim_(config.head_dim), rotary_dim_(config.rotary_dim), version_(config.content_version) {
  if (version_ < 2 || head_dim_ <= 0 || head_dim_ > 512 || static_cast<int64_t>(step.w_q.size()) < head_dim_) return;
  // The smallest k >= 3 for which the reference's rrms of a sum of squares D * 4^k is exactly 2^-k.
  float rrms = 0;
  for (int k = 3; k <= 48 && exponent_ == 0; ++k) {
    rrms = rms_norm_rrms(std::ldexp(static_cast<float>(head_dim_), 2 * k), head_dim_, step.eps);
    if (rrms == std::ldexp(1.0f, -k)) exponent_ = k;
  }
  if (exponent_ == 0) {
    if (version_ >= 4) alternatives_ = std::make_shared<const AlternativeContent>(config, step, boundary_rows_, 0);
    return;
  }
  const auto d_count = static_cast<size_t>(head_dim_);
  tie_even_.resize(d_count);
  tie_odd_.resize(d_count);
  near_tie_.resize(d_count);
  e4m3_tie_.resize(d_count);
  const bool fp8 = config.store_dtype == StoreDtype::kFp8E4m3;
  for (int64_t d = 0; d < head_dim_; ++d) {
    for (int16_t n = 1; n <= kMaxTieMagnitude; ++n) {
      const Bf16 x = bf16_from_float(std::ldexp(static_cast<float>(n), exponent_ - 5));
      const float y = rms_norm_scale(x, rrms, step.w_q[d]);
      uint32_t bits = 0;
      std::memcpy(&bits, &y, sizeof bits);
      if (on_bf16_tie(y))
        ((bits >> 16 & 1u) == 0 ? tie_even_ : tie_odd_)[d].push_back(n);
      else if (near_bf16_tie(y))
        near_tie_[d].push_back(n);
      if (fp8 && d >= rotary_dim_ && on_e4m3_tie(bf16_from_float(y))) e4m3_tie_[d].push_back(n);
    }
  }
  boundary_rows_.resize(static_cast<size_t>(kBoundaryPool * head_dim_));
  for (int64_t i = 0; i < kBoundaryPool; ++i)
    boundary_row(hash_words(seed_, kBoundaryStream, static_cast<uint64_t>(i)), boundary_rows_.data() + i * head_dim_);
  if (version_ >= 4) alternatives_ = std::make_shared<const AlternativeContent>(config, step, boundary_rows_, exponent_);
}

RowClass RowContent::key_class(const Origin& o) const {
  if (version_ < 2) return RowClass::kPlain;
  const RowClass c = class_of(origin_hash(seed_, kKeyStream, o), 0);
  return c == RowClass::kPlain && alternatives_ && alternatives_->key_planted(o) ? RowClass::kAlternative : c;
}

RowClass RowContent::query_class(const Origin& o, int64_t head) const {
  return query_class_of(o, query_hash(seed_, o, head));
}

RowClass RowContent::query_class_of(const Origin& o, uint64_t hash) const {
  if (version_ < 2) return RowClass::kPlain;
  RowClass c = class_of(hash, kBoundaryQueryRowsPer64);
  if (c == RowClass::kBoundary && boundary_rows_.empty()) c = RowClass::kPlain;
  return c == RowClass::kPlain && alternatives_ && alternatives_->is_query_row(o, hash) ? RowClass::kAlternative : c;
}

uint64_t RowContent::query_hash_of(const Origin& o, int64_t head) const { return query_hash(seed_, o, head); }

std::optional<NumericAlternative> RowContent::query_alternative(const Origin& o, int64_t head) const {
  const uint64_t hash = query_hash(seed_, o, head);
  if (query_class_of(o, hash) != RowClass::kAlternative) return std::nullopt;
  return alternatives_->query_alternative(o, hash);
}

RowClass RowContent::key(const Origin& o, Bf16* out) const {
  plain_key(seed_, o, head_dim_, out);
  const RowClass c = key_class(o);
  if (c == RowClass::kSpecial)
    add_special_values(origin_hash(seed_, kKeyStream, o), kOriginElements, head_dim_, rotary_dim_, out);
  else if (c == RowClass::kAlternative)
    alternatives_->plant_key(o, out);
  return c;
}

RowClass RowContent::query(const Origin& o, int64_t head, Bf16* out) const {
  const uint64_t hash = query_hash(seed_, o, head);
  const RowClass c = query_class_of(o, hash);
  switch (c) {
    case RowClass::kAlternative:
      alternatives_->query_row(o, hash, out);
      return c;
    case RowClass::kPlain:
      plain_query(hash, head_dim_, out);
      return c;
    case RowClass::kSpecial:
      plain_query(hash, head_dim_, out);
      add_special_values(hash, 0, head_dim_, rotary_dim_, out);
      return c;
    case RowClass::kBoundary: {
      // One of the pool's rows, negated for half of the rows (a tie stays a tie).
      const uint64_t pick = Rng::mix(hash ^ kBoundaryStream);
      const Bf16* row = boundary_rows_.data() + (pick % kBoundaryPool) * static_cast<uint64_t>(head_dim_);
      const auto sign = static_cast<Bf16>((pick >> 32 & 1u) != 0 ? 0x8000u : 0u);
      for (int64_t d = 0; d < head_dim_; ++d) out[d] = static_cast<Bf16>(row[d] ^ sign);
      return c;
    }
  }
  return c;
}

void RowContent::boundary_row(uint64_t hash, Bf16* out) const {
  Rng rng(hash ^ kBoundaryStream);
  const int64_t d_count = head_dim_;
  std::array<int64_t, 512> n{};  // D <= 512 (the constructor leaves exponent_ 0 otherwise)
  // Four balancing elements, distinct, anywhere in the row.
  std::array<int64_t, 4> balance{-1, -1, -1, -1};
  for (size_t i = 0; i < balance.size();) {
    const auto d = static_cast<int64_t>(rng.below(static_cast<uint64_t>(d_count)));
    if (std::find(balance.begin(), balance.end(), d) == balance.end()) balance[i++] = d;
  }
  auto balancing = [&balance](int64_t d) { return std::find(balance.begin(), balance.end(), d) != balance.end(); };
  const int64_t target = 1024 * d_count;  // the sum of squares of n: x = n * 2^(k-5) gives D * 4^k
  int64_t sum = 0;
  int64_t left = d_count - 4;  // elements still to pick besides the balancing ones
  for (int64_t d = 0; d < d_count; ++d) {
    if (balancing(d)) continue;
    // The magnitude the remaining elements need on average; this one is drawn around it.
    const auto want = static_cast<int64_t>(
        std::sqrt(static_cast<double>(std::max<int64_t>(0, target - sum)) / static_cast<double>(left + 4)));
    --left;
    const auto& e4m3 = e4m3_tie_[d];
    const uint64_t pick = rng.below(8);
    const std::vector<int16_t>* list = pick < 6 ? &tie_even_[d] : pick < 7 ? &tie_odd_[d] : &near_tie_[d];
    if (!e4m3.empty() && rng.chance(1, 2)) list = &e4m3;
    for (const auto* fallback : {&tie_even_[d], &tie_odd_[d], &near_tie_[d]})
      if (list->empty()) list = fallback;
    if (list->empty()) {
      n[d] = rng.range(want / 2, want + want / 2);
    } else {
      // A random candidate within a factor of two of `want`, else the closest one.
      auto close = [want](int16_t c) { return 2 * c >= want && c <= 2 * want; };
      const auto count = static_cast<uint64_t>(std::count_if(list->begin(), list->end(), close));
      if (count > 0) {
        uint64_t k = rng.below(count);
        for (int16_t c : *list)
          if (close(c) && k-- == 0) n[d] = c;
      } else {
        n[d] = *std::min_element(list->begin(), list->end(),
                                 [want](int16_t a, int16_t b) { return std::abs(a - want) < std::abs(b - want); });
      }
    }
    if (rng.chance(1, 2)) n[d] = -n[d];
    sum += n[d] * n[d];
  }
  // The balancing elements make the sum of squares exactly 1024 * D (x = n * 2^(k-5)).
  int64_t rest = target - sum;
  for (int64_t d = 0; d < d_count && (rest < 0 || rest > 4 * 255 * 255); ++d) {
    if (balancing(d)) continue;
    const int64_t want = rest < 0 ? 0 : 255;
    rest += n[d] * n[d] - want * want;
    n[d] = want;
  }
  std::array<int64_t, 4> parts{};
  if (rest < 0 || !four_squares(rest, &parts)) {  // not expected; a plain row keeps content total
    Rng plain(hash);
    random_row(plain, 4, d_count, out);
    return;
  }
  for (size_t i = 0; i < 4; ++i) n[balance[i]] = rng.chance(1, 2) ? -parts[i] : parts[i];
  const float unit = std::ldexp(1.0f, exponent_ - 5);  // exact: n has at most 8 significant bits
  for (int64_t d = 0; d < d_count; ++d) out[d] = bf16_from_float(static_cast<float>(n[d]) * unit);
}

std::optional<Origin> decode_key_origin(const Bf16* key, int64_t head_dim) {
  if (head_dim < kOriginElements) return std::nullopt;
  int64_t digits[kOriginElements];
  for (int64_t i = 0; i < kOriginElements; ++i) {
    const float v = float_from_bf16(key[i]);
    if (!(v >= 0.0f && v <= 255.0f) || v != static_cast<float>(static_cast<int64_t>(v))) return std::nullopt;
    digits[i] = static_cast<int64_t>(v);
  }
  if (digits[0] < 1 || digits[0] > 4) return std::nullopt;
  Origin o;
  o.kind = static_cast<OriginKind>(digits[0]);
  o.id = digits[1] << 16 | digits[2] << 8 | digits[3];
  o.position = digits[4] << 16 | digits[5] << 8 | digits[6];
  o.attempt = digits[7] << 8 | digits[8];
  return o;
}

std::array<int64_t, 3> model_position(const ScenarioConfig& config, const Origin& o) {
  const int64_t p = o.position;
  if (!config.mrope || o.kind == OriginKind::kPadding) return {p, p, p};
  if (o.kind == OriginKind::kGenerated) {
    const auto shift =
        static_cast<int64_t>(hash_words(config.seed ^ kPositionStream, static_cast<uint64_t>(o.id)) % 64);
    return {p + shift, p + shift, p + shift};
  }
  // Prompt tokens: patches of 16 tokens share a grid origin; h and w wander inside [p, p + 64).
  const uint64_t patch =
      hash_words(config.seed ^ kPositionStream, static_cast<uint64_t>(o.kind) << 56 ^ static_cast<uint64_t>(o.id),
                 static_cast<uint64_t>(p / 16));
  return {p, p + static_cast<int64_t>(patch % 48) + p % 16, p + static_cast<int64_t>((patch >> 8) % 48) + (p % 16) / 4};
}

}  // namespace qsa::traces
