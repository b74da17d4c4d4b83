#pragma once
// Row content as a pure function of its origin: (seed, prompt family or request, position,
// attempt). A committed token has attempt 0, whatever schedule produced it (an accepted draft is the
// right token, so its key is the committed key); a rejected draft has attempt = its step + 1, so it
// differs from the key later committed at the same position. The first elements of every key spell
// the origin out in small integers (exact in bf16), so a misplaced row names where it came from.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/numeric_alternatives.hpp"
#include "qsa/numerics.hpp"
#include "qsa/step_types.hpp"
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

/// What a row holds (docs/content.md).
enum class RowClass : uint8_t {
  kPlain,     // pseudo-random values with full bf16 significands (all rows of content version 1)
  kBoundary,  // a query row whose RMSNorm results sit on bf16 ties (and, stored as fp8, e4m3 ties)
  kSpecial,   // a few elements are special: subnormals, +-infinity, NaN, +-max finite, -0
  kAlternative,  // version 4: an input on which a numerical alternative of SPEC 6 differs from the
                 // recipe (a key of a planted group, a searched query row; alternative_content.hpp)
};

class AlternativeContent;

/// Shares of content version 2, out of 64 rows (per head for queries).
inline constexpr uint64_t kSpecialRowsPer64 = 1;         // keys and queries
inline constexpr uint64_t kBoundaryQueryRowsPer64 = 16;  // queries: a quarter

/// The row content of one scenario: a pure function of its config (seed, head dim, rotary dim,
/// store dtype, content version) and its step config (norm weights, eps), so every step, the
/// oracle and a replay see the same rows. Keys start with the origin digits, then pseudo-random
/// values in [-3, 3]; queries are pseudo-random in [-4, 4] (plain rows).
///
/// A boundary query row has the sum of squares D * 4^k exactly (every element a multiple of
/// 2^(k-5) with at most 8 significant bits, so the pairwise tree adds exactly), with k the
/// smallest >= 3 for which the reference's rrms is exactly 2^-k (eps is absorbed). Then each
/// element's norm result (x * 2^-k) * (1 + w) is a short exact product, and the elements are
/// picked, with the reference's rms_norm_scale(), where it lies on a bf16 tie (3/4 of them with
/// an even neighbour towards zero, so that round-half-away differs from round-to-nearest-even), or
/// within one binary32 ulp of one, or (pass-through elements [rd, D) of an fp8 scenario, half of
/// them) where its bf16 value is an e4m3 tie. Four elements balance the sum of squares.
class RowContent {
 public:
  RowContent(const ScenarioConfig& config, const StepConfig& step);

  /// Key row of head_dim values.
  RowClass key(const Origin& origin, Bf16* out) const;  // returns key_class(origin)
  /// Query row of one head, head_dim values.
  RowClass query(const Origin& origin, int64_t head, Bf16* out) const;  // returns query_class(origin, head)

  RowClass key_class(const Origin& origin) const;
  RowClass query_class(const Origin& origin, int64_t head) const;

  /// The hash that draws the query row of (origin, head): AlternativeContent's argument.
  uint64_t query_hash_of(const Origin& origin, int64_t head) const;
  /// The numerical alternative whose searched row the query row of (origin, head) is, if any.
  std::optional<NumericAlternative> query_alternative(const Origin& origin, int64_t head) const;

  /// Version 4's searched inputs (null before version 4).
  const AlternativeContent* alternatives() const { return alternatives_.get(); }

  /// The k of boundary rows (their sum of squares is D * 4^k), 0 when the scenario has none
  /// (content version 1, or an eps too large to be absorbed by any representable 4^k).
  int boundary_exponent() const { return exponent_; }

  /// Boundary rows are drawn (and negated for half of the rows) from a pool of this many, built
  /// once per scenario: building one costs about 2 us, copying one nothing.
  static constexpr int64_t kBoundaryPool = 256;

 private:
  void boundary_row(uint64_t hash, Bf16* out) const;  // one row of the pool
  RowClass query_class_of(const Origin& origin, uint64_t query_hash) const;

  uint64_t seed_ = 1;
  int64_t head_dim_ = 32;
  int64_t rotary_dim_ = 16;
  int version_ = kContentVersion;
  int exponent_ = 0;
  // Per element: the magnitudes n in [1, 96] whose norm result, at x = n * 2^(k-5), is a bf16
  // tie with an even / odd neighbour towards zero, within one binary32 ulp of a tie, or (fp8
  // scenarios, elements [rd, D)) rounds to a bf16 value that is an e4m3 tie.
  std::vector<std::vector<int16_t>> tie_even_, tie_odd_, near_tie_, e4m3_tie_;
  std::vector<Bf16> boundary_rows_;  // [kBoundaryPool, D]; empty without boundary rows
  std::shared_ptr<const AlternativeContent> alternatives_;  // version 4; null before
};

/// Whether a binary32 value lies on a bf16 rounding tie (its low 16 bits are 0x8000), or within
/// one binary32 ulp of one (0x7FFF or 0x8001); false for infinities and NaN.
bool on_bf16_tie(float x);
bool near_bf16_tie(float x);

/// Whether a bf16 value lies exactly halfway between two neighbouring e4m3fn values (below the
/// saturation at 448), by the reference's own conversions.
bool on_e4m3_tie(Bf16 x);

/// The origin spelt by a key's first elements, or nullopt when they spell none (e.g. zeros).
std::optional<Origin> decode_key_origin(const Bf16* key, int64_t head_dim);

/// The model's (t, h, w) position of a token: (p, p, p) for text models; for MRoPE models prompt
/// tokens get h and w offsets in [0, 64) that depend on the family or request and p / 16 (an image
/// patch grid), generated tokens a per-request shift in [0, 64). Always < p + 64.
std::array<int64_t, 3> model_position(const ScenarioConfig& config, const Origin& origin);

}  // namespace qsa::traces
