#pragma once
// The model oracle of SPEC 7: what the two side caches must hold after any step, computed from
// each live request's committed token stream alone. It shares only the numeric building blocks
// (qsa/numerics.hpp) with the reference step update, never its mechanics (chunks, slots of a step,
// read-before-commit), so a bug in the mechanics cannot hide in the oracle.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "qsa/invariants.hpp"
#include "qsa/step_types.hpp"

namespace qsa {

/// One live request's committed stream (SPEC 7): its committed length L, where its groups and
/// open group live, and the committed key and model position of every position below L.
struct CommittedStream {
  int64_t request = 0;
  int64_t committed_length = 0;                                      // L
  std::vector<int32_t> blocks;                                       // compressed block table row
  int32_t ring_block = -1;                                           // the request's ring block
  std::function<void(int64_t position, Bf16* key)> key;              // committed key of position < L
  std::function<std::array<int64_t, 3>(int64_t position)> position;  // its (t, h, w)
  std::function<bool(int64_t group)> exempt;             // no row is expected (e.g. its closing row had no slot)
  std::function<std::string(const Bf16* key)> describe;  // optional: names a key's origin in reports
};

class ModelOracle {
 public:
  explicit ModelOracle(StepConfig config) : config_(std::move(config)) {}

  /// Whether a compressed row or a q_out head row (`width` elements of `element_bytes`) is
  /// acceptable for the expected one. Bit for bit unless set: the float tolerance mode of SPEC 6
  /// (engine/float_comparator.hpp) sets its comparator here. Ring rows are always exact.
  using RowAccepts =
      std::function<bool(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes)>;
  void set_row_accepts(RowAccepts accepts) { row_accepts_ = std::move(accepts); }

  /// The compressed row (store-dtype bytes) that group g must hold: SPEC 6 applied to the committed
  /// keys of positions gC .. gC + C - 1, rotated at the first member's position when the ring
  /// caches positions, else at (gC, gC, gC).
  std::vector<uint8_t> expected_group_row(const CommittedStream& stream, int64_t group) const;

  /// SPEC 7.1 for groups [first_group, L / C): each compressed row equals expected_group_row().
  /// Groups that are exempt, or whose block is missing or past the cache, are skipped.
  std::optional<Violation> check_groups(const CommittedStream& stream, const CacheBuffer& compressed,
                                        int64_t first_group) const;

  /// SPEC 7.2: for every m in [C·(L / C), L), ring row m mod R holds the committed key of m (and,
  /// when the ring caches positions, its (t, h, w)).
  std::optional<Violation> check_open_group(const CommittedStream& stream, const CacheBuffer& ring) const;

  /// The Q path of SPEC 5 for one step: q_out[t][h] = store(rope(norm(q[t][h], w_q), positions of t)).
  std::optional<Violation> check_queries(const StepInput& input, const std::vector<uint8_t>& q_out) const;

  const StepConfig& config() const { return config_; }

 private:
  bool accepts(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) const;

  StepConfig config_;
  RowAccepts row_accepts_;
};

}  // namespace qsa
