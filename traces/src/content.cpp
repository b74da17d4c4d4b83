#include "qsa/traces/content.hpp"

#include "qsa/traces/rng.hpp"

namespace qsa::traces {
namespace {

constexpr uint64_t kKeyStream = 0x6B6579;    // "key"
constexpr uint64_t kQueryStream = 0x717279;  // "qry"
constexpr uint64_t kPositionStream = 0x706F73;

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

void key_row(uint64_t seed, const Origin& o, int64_t head_dim, Bf16* out) {
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

void query_row(uint64_t seed, const Origin& o, int64_t head, int64_t head_dim, Bf16* out) {
  Rng rng(hash_words(origin_hash(seed, kQueryStream, o), static_cast<uint64_t>(head)));
  random_row(rng, 4, head_dim, out);
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
