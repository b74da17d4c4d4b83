#pragma once
// Row content as a pure function of its origin: (seed, prompt family or request, position,
// attempt). A committed token has attempt 0, whatever schedule produced it (an accepted draft is the
// right token, so its key is the committed key); a rejected draft has attempt = its step + 1, so it
// differs from the key later committed at the same position. The first elements of every key spell
// the origin out in small integers (exact in bf16), so a misplaced row names where it came from.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "qsa/numerics.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

enum class OriginKind : uint8_t {
  kFamilyPrompt = 1,  // a prompt token shared by a prompt family: id = family
  kOwnPrompt = 2,     // a prompt token of a request without family: id = request
  kGenerated = 3,     // an output or draft token: id = request; attempt 0 when committed, step + 1 when rejected
  kPadding = 4,       // a CUDA-graph padding row: id = step, position = row
};

struct Origin {
  OriginKind kind = OriginKind::kPadding;
  int64_t id = 0;
  int64_t position = 0;
  int64_t attempt = 0;

  bool operator==(const Origin& o) const {
    return kind == o.kind && id == o.id && position == o.position && attempt == o.attempt;
  }
};

std::string to_string(const Origin& origin);  // e.g. "request 7 position 35 attempt 12 (generated)"

/// Elements of a key that spell out the origin (kind, id in 3 bytes, position in 3 bytes, attempt in 2).
inline constexpr int64_t kOriginElements = 9;

/// Key row of `head_dim` bf16 values: the origin digits, then pseudo-random values in [-3, 3].
void key_row(uint64_t seed, const Origin& origin, int64_t head_dim, Bf16* out);

/// Query row of one head: pseudo-random values in [-4, 4].
void query_row(uint64_t seed, const Origin& origin, int64_t head, int64_t head_dim, Bf16* out);

/// The origin spelt by a key's first elements, or nullopt when they spell none (e.g. zeros).
std::optional<Origin> decode_key_origin(const Bf16* key, int64_t head_dim);

/// The model's (t, h, w) position of a token: (p, p, p) for text models; for MRoPE models prompt
/// tokens get h and w offsets in [0, 64) that depend on the family or request and p / 16 (an image
/// patch grid), generated tokens a per-request shift in [0, 64). Always < p + 64.
std::array<int64_t, 3> model_position(const ScenarioConfig& config, const Origin& origin);

}  // namespace qsa::traces
