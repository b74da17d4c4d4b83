#pragma once
// Content versions 4 and 5: inputs on which each numerical alternative of SPEC 6
// (qsa/numeric_alternatives.hpp) differs from the recipe, searched once per scenario and planted
// into rows (docs/content.md "Numerical alternatives"):
// - pooling: C-member tuples planted into the same elements of the C committed keys of a group
//   (one group in eight), at the scenario's C, powers of two or not;
// - RMSNorm: query rows whose norm result differs under each norm alternative (version 5 adds
//   rows built for the halving-tree sum of squares, the division by rms and the reassociated
//   scale, whose results lie on bf16 ties: norm_tie_rows.cpp);
// - RoPE: a few positions of the RoPE table hold tiny entries (about 2^-120) on pair 0, and query
//   rows at those positions have tiny norm results on that pair, so the products are inexact in
//   binary32 (below 2^-133) and a fused multiply-add rounds differently (bug:fma-contraction).
// Everything is a pure function of the scenario's config and step config, so a replay, the oracle
// and every step see the same rows.

#include <array>
#include <cstdint>
#include <vector>

#include "qsa/numeric_alternatives.hpp"
#include "qsa/step_types.hpp"
#include "qsa/traces/scenario.hpp"

namespace qsa::traces {

struct Origin;

/// Whether row `position` of a version-4 RoPE table holds the tiny entries on pair 0 (one position
/// in sixteen, drawn from the seed).
bool tiny_rope_position(uint64_t seed, int64_t position);
/// The tiny (cos, sin) entries of a scenario: magnitudes in [2^-120, 2^-119) with odd significands.
std::array<Bf16, 2> tiny_rope_entries(uint64_t seed);
/// Writes them into a [max_position, rd] table at every tiny position (content version 4).
void add_tiny_rope_entries(uint64_t seed, int64_t rotary_dim, int64_t max_position, std::vector<Bf16>* table);

/// Rows of a step that hold an alternative's planted input, per alternative (a planted key group's
/// member counts once for each pool alternative it carries): the input-space coverage counts them.
using AlternativeRowCounts = std::array<int64_t, kNumNumericAlternatives>;

/// The searched inputs of one scenario. Empty for content versions below 4.
class AlternativeContent {
 public:
  /// `boundary_rows`: RowContent's pool of boundary rows ([n, D], rrms exactly 2^-boundary_exponent),
  /// from which the norm and RoPE rows are derived.
  AlternativeContent(const ScenarioConfig& config, const StepConfig& step, const std::vector<Bf16>& boundary_rows,
                     int boundary_exponent);

  /// Overwrites the planted elements of a committed key whose group is planted (one in eight).
  void plant_key(const Origin& origin, Bf16* key) const;
  /// Whether the group of this committed key is planted.
  bool key_planted(const Origin& origin) const;

  /// Whether the query row of (origin, head) with its row hash is an alternative row, and which.
  bool is_query_row(const Origin& origin, uint64_t query_hash) const;
  /// The alternative whose searched row that query row is (only when is_query_row).
  NumericAlternative query_alternative(const Origin& origin, uint64_t query_hash) const;
  /// The pool alternatives a planted key carries.
  const std::vector<NumericAlternative>& pool_alternatives() const { return pool_alternatives_; }
  /// Writes that row (only when is_query_row).
  void query_row(const Origin& origin, uint64_t query_hash, Bf16* out) const;

  /// The tuples and rows found per alternative (coverage and the tests); C members or D elements each.
  const std::vector<std::vector<Bf16>>& inputs(NumericAlternative alternative) const;
  /// The alternatives whose inputs are planted by this scenario (found by the search).
  std::vector<NumericAlternative> planted() const;

 private:
  void search_pool_tuples(uint64_t seed);
  void search_norm_rows(uint64_t seed, const std::vector<Bf16>& boundary_rows, int boundary_exponent);
  void search_rope_rows(uint64_t seed, const std::vector<Bf16>& boundary_rows);
  void build_tie_rows(uint64_t seed);

  ScenarioConfig config_;
  std::vector<Bf16> w_q_;
  float eps_ = 1e-6f;
  std::vector<std::vector<std::vector<Bf16>>> found_;  // [alternative][k] -> C members or D elements
  std::vector<NumericAlternative> pool_alternatives_;  // with tuples, in the order planted into keys
  std::vector<NumericAlternative> norm_alternatives_;  // with rows
  int64_t first_key_element_ = 9;
};

}  // namespace qsa::traces
