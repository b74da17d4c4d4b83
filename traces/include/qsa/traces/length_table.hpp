#pragma once
// A length distribution as an empirical quantile table, sampled by inverse CDF with the project's
// Rng. Integer arithmetic only (levels in parts per million, linear interpolation with floor
// division), so a seed draws the same lengths with any compiler, libm or FMA setting.

#include <cstdint>
#include <vector>

#include "qsa/traces/rng.hpp"

namespace qsa::traces {

/// Quantile levels are parts per million: 0 is the minimum, kLevelScale the maximum.
inline constexpr int64_t kLevelScale = 1000000;

struct QuantilePoint {
  int64_t level = 0;  // in [0, kLevelScale], strictly increasing along a table
  int64_t value = 0;  // tokens, >= 0, non-decreasing along a table
};

/// The levels the fitters use (tools/fit_azure.py and LengthTable::from_samples): every 2.5 %,
/// then 99 %, 99.5 %, 99.9 % and the maximum, so heavy tails keep their shape.
const std::vector<int64_t>& fit_levels();

class LengthTable {
 public:
  LengthTable() = default;

  /// Preconditions (throw std::invalid_argument naming the point): at least two points, the first
  /// at level 0, the last at kLevelScale, levels strictly increasing, values >= 0 and non-decreasing.
  explicit LengthTable(std::vector<QuantilePoint> points);

  /// Every integer in [lo, hi] about equally likely (0 <= lo <= hi).
  static LengthTable uniform(int64_t lo, int64_t hi);

  /// The empirical table of `values` at fit_levels(): the value at level l is the order statistic
  /// sorted[l * (n - 1) / kLevelScale]. Throws std::invalid_argument when `values` is empty.
  static LengthTable from_samples(std::vector<int64_t> values);

  /// The inverse CDF at `level` (clamped to [0, kLevelScale]), linear between points, rounded down.
  /// Example: points {0, 10}, {1000000, 20} give quantile(500000) == 15.
  int64_t quantile(int64_t level) const;

  /// quantile(u) for u uniform in [0, kLevelScale): one draw from the distribution.
  int64_t sample(Rng& rng) const { return quantile(static_cast<int64_t>(rng.below(kLevelScale))); }

  /// Bounds of every sample (max() is reached only at level kLevelScale, which sample() never draws).
  int64_t min() const { return points_.front().value; }
  int64_t max() const { return points_.back().value; }
  bool empty() const { return points_.empty(); }
  const std::vector<QuantilePoint>& points() const { return points_; }

 private:
  std::vector<QuantilePoint> points_;
};

/// A trace length divided by a scale factor, never below 1 (a request has at least one token).
inline int64_t scaled_length(int64_t tokens, int64_t scale) {
  const int64_t scaled = scale > 1 ? tokens / scale : tokens;
  return scaled < 1 ? 1 : scaled;
}

}  // namespace qsa::traces
