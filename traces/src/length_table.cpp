#include "qsa/traces/length_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace qsa::traces {

const std::vector<int64_t>& fit_levels() {
  static const std::vector<int64_t> levels = [] {
    std::vector<int64_t> l;
    for (int64_t i = 0; i < 40; ++i) l.push_back(i * 25000);
    for (int64_t extra : {990000, 995000, 999000, 1000000}) l.push_back(extra);
    return l;
  }();
  return levels;
}

LengthTable::LengthTable(std::vector<QuantilePoint> points) : points_(std::move(points)) {
  auto fail = [](size_t i, const std::string& why) {
    throw std::invalid_argument("length table point " + std::to_string(i) + ": " + why);
  };
  if (points_.size() < 2) fail(0, "a table needs at least two points");
  if (points_.front().level != 0) fail(0, "the first level must be 0");
  if (points_.back().level != kLevelScale) fail(points_.size() - 1, "the last level must be 1000000");
  for (size_t i = 0; i < points_.size(); ++i) {
    if (points_[i].value < 0) fail(i, "negative value");
    if (i == 0) continue;
    if (points_[i].level <= points_[i - 1].level) fail(i, "levels must increase strictly");
    if (points_[i].value < points_[i - 1].value) fail(i, "values must not decrease");
  }
}

LengthTable LengthTable::uniform(int64_t lo, int64_t hi) {
  // The last point is hi + 1 so that floor interpolation reaches hi as often as any other value.
  return LengthTable({{0, lo}, {kLevelScale, hi + 1}});
}

LengthTable LengthTable::from_samples(std::vector<int64_t> values) {
  if (values.empty()) throw std::invalid_argument("length table from no samples");
  std::sort(values.begin(), values.end());
  const auto last = static_cast<int64_t>(values.size()) - 1;
  std::vector<QuantilePoint> points;
  for (int64_t level : fit_levels()) points.push_back({level, values[static_cast<size_t>(level * last / kLevelScale)]});
  return LengthTable(std::move(points));
}

int64_t LengthTable::quantile(int64_t level) const {
  level = std::clamp<int64_t>(level, 0, kLevelScale);
  // The first point whose level exceeds `level`; the segment ends there.
  auto upper = std::upper_bound(points_.begin(), points_.end(), level,
                                [](int64_t l, const QuantilePoint& p) { return l < p.level; });
  if (upper == points_.end()) return points_.back().value;
  const QuantilePoint& hi = *upper;
  const QuantilePoint& lo = *(upper - 1);
  return lo.value + (hi.value - lo.value) * (level - lo.level) / (hi.level - lo.level);
}

}  // namespace qsa::traces
