#include "qsa/traces/float_comparator.hpp"

#include <algorithm>

namespace qsa::traces {
namespace {

// Today's rule for our kernels: bit for bit.
class ExactComparator : public FloatComparator {
 public:
  FloatTolerance tolerance() const override { return FloatTolerance{}; }
  std::optional<FloatDifference> compare(const CacheLayout& /*rows*/, const std::vector<uint8_t>& expected,
                                         const std::vector<uint8_t>& actual) const override {
    return first_differing_byte(expected, actual);
  }
};

}  // namespace

std::string FloatTolerance::to_string() const { return "exact"; }

std::unique_ptr<FloatComparator> make_float_comparator(FloatTolerance tolerance) {
  switch (tolerance.mode) {
    case FloatTolerance::Mode::kExact:
      break;
  }
  return std::make_unique<ExactComparator>();
}

const FloatComparator& exact_float_comparator() {
  static const ExactComparator exact;
  return exact;
}

std::optional<FloatDifference> first_differing_byte(const std::vector<uint8_t>& expected,
                                                    const std::vector<uint8_t>& actual) {
  FloatDifference difference{-1, 0, "bytes"};
  const size_t size = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < size; ++i) {
    if (expected[i] == actual[i]) continue;
    if (difference.first_byte < 0) difference.first_byte = static_cast<int64_t>(i);
    ++difference.count;
  }
  if (difference.first_byte < 0) return std::nullopt;
  return difference;
}

}  // namespace qsa::traces
