#pragma once
// The few decisions a generator makes (an integer in a range, a chance, one of a list), behind
// one interface, so one generator (edge_batch_generator.hpp) serves three sources of randomness:
// the project's Rng (here), RapidCheck's Gen (properties/generators/rapidcheck_choice.hpp, which
// shrinks) and libFuzzer's FuzzedDataProvider (fuzz/fuzzed_data_choice.hpp, which the fuzzer
// mutates). No test framework is included here.

#include <cstdint>
#include <initializer_list>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {

class Choice {
 public:
  virtual ~Choice() = default;

  /// An integer in [lo, hi] (inclusive); lo >= hi gives lo.
  virtual int64_t range(int64_t lo, int64_t hi) = 0;
  /// True with probability about numerator / denominator.
  virtual bool chance(uint64_t numerator, uint64_t denominator) = 0;
  /// A seed for bulk values (thousands of table entries): one decision, not thousands, so that
  /// shrinking and fuzzing stay fast.
  virtual uint64_t seed() = 0;

  /// One of `values`.
  int64_t pick(std::initializer_list<int64_t> values) {
    return *(values.begin() + range(0, static_cast<int64_t>(values.size()) - 1));
  }
  /// An integer in [lo, hi], half the time one of its bounds lo, lo + 1, hi - 1, hi (where kernels
  /// get thresholds wrong), otherwise anywhere.
  int64_t edge_range(int64_t lo, int64_t hi) {
    if (lo >= hi || !chance(1, 2)) return range(lo, hi);
    switch (range(0, 3)) {
      case 0:
        return lo;
      case 1:
        return lo + 1 <= hi ? lo + 1 : hi;
      case 2:
        return hi - 1 >= lo ? hi - 1 : lo;
      default:
        return hi;
    }
  }
};

/// The project's Rng as a Choice (borrowed, not owned).
class RngChoice final : public Choice {
 public:
  explicit RngChoice(Rng& rng) : rng_(rng) {}
  int64_t range(int64_t lo, int64_t hi) override { return rng_.range(lo, hi); }
  bool chance(uint64_t numerator, uint64_t denominator) override { return rng_.chance(numerator, denominator); }
  uint64_t seed() override { return rng_.next(); }

 private:
  Rng& rng_;
};

}  // namespace qsa::traces
