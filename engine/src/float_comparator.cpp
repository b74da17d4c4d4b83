#include "qsa/engine/float_comparator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "qsa/numerics.hpp"

namespace qsa::engine {
namespace {

// Today's rule for our kernels: bit for bit.
class ExactComparator : public FloatComparator {
 public:
  traces::FloatTolerance tolerance() const override { return traces::FloatTolerance{}; }
  std::optional<FloatDifference> compare(const CacheLayout& /*rows*/, ByteView expected,
                                         ByteView actual) const override {
    return first_differing_byte(expected, actual);
  }
  bool accepts_row(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) const override {
    return std::memcmp(expected, actual, static_cast<size_t>(width * element_bytes)) == 0;
  }
};

// SPEC 6's declared tolerance mode: each element within N row-ulps. Bytes outside the rows (the
// padding between rows and blocks) stay exact.
class RowUlpComparator : public FloatComparator {
 public:
  explicit RowUlpComparator(traces::FloatTolerance tolerance) : tolerance_(tolerance) {}
  traces::FloatTolerance tolerance() const override { return tolerance_; }

  std::optional<FloatDifference> compare(const CacheLayout& rows, ByteView expected,
                                         ByteView actual) const override {
    if (expected.size() == actual.size() && std::memcmp(expected.data(), actual.data(), expected.size()) == 0)
      return std::nullopt;  // bit-identical: the common case, without a distance per element
    FloatDifference difference{-1, 0, "elements beyond " + std::to_string(tolerance_.ulps) + " row-ulps", 0};
    const int eb = rows.element_bytes;
    std::vector<bool> in_row(expected.size(), false);
    for (int64_t slot = 0; slot < rows.num_blocks * rows.rows; ++slot) {
      const int64_t offset = rows.byte_offset(slot, 0);
      if (offset + rows.width * eb > static_cast<int64_t>(expected.size())) break;
      std::fill(in_row.begin() + offset, in_row.begin() + offset + rows.width * eb, true);
      if (std::memcmp(&expected[offset], &actual[offset], static_cast<size_t>(rows.width * eb)) == 0) continue;
      const std::vector<double> d = row_ulp_distances(&expected[offset], &actual[offset], rows.width, eb);
      for (int64_t e = 0; e < rows.width; ++e) {
        if (d[e] <= static_cast<double>(tolerance_.ulps)) continue;
        if (difference.first_byte < 0) {
          difference.first_byte = offset + e * eb;
          difference.distance = d[e];
        }
        ++difference.count;
      }
    }
    for (size_t i = 0; i < expected.size(); ++i) {  // padding: exact
      if (in_row[i] || expected[i] == actual[i]) continue;
      if (difference.first_byte < 0) difference.first_byte = static_cast<int64_t>(i);
      ++difference.count;
    }
    if (difference.first_byte < 0) return std::nullopt;
    return difference;
  }

  bool accepts_row(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) const override {
    if (std::memcmp(expected, actual, static_cast<size_t>(width * element_bytes)) == 0) return true;
    const std::vector<double> d = row_ulp_distances(expected, actual, width, element_bytes);
    return std::all_of(d.begin(), d.end(), [&](double x) { return x <= static_cast<double>(tolerance_.ulps); });
  }

 private:
  traces::FloatTolerance tolerance_;
};

bool is_nan_element(const uint8_t* p, int element_bytes) { return std::isnan(element_value(p, element_bytes)); }

}  // namespace

std::unique_ptr<FloatComparator> make_float_comparator(traces::FloatTolerance tolerance) {
  switch (tolerance.mode) {
    case traces::FloatTolerance::Mode::kExact:
      break;
    case traces::FloatTolerance::Mode::kRowUlp:
      return std::make_unique<RowUlpComparator>(tolerance);
  }
  return std::make_unique<ExactComparator>();
}

const FloatComparator& exact_float_comparator() {
  static const ExactComparator exact;
  return exact;
}

std::optional<FloatDifference> first_differing_byte(ByteView expected, ByteView actual) {
  FloatDifference difference{-1, 0, "bytes", 0};
  const size_t size = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < size; ++i) {
    if (expected[i] == actual[i]) continue;
    if (difference.first_byte < 0) difference.first_byte = static_cast<int64_t>(i);
    ++difference.count;
  }
  if (difference.first_byte < 0) return std::nullopt;
  return difference;
}

double element_value(const uint8_t* element, int element_bytes) {
  if (element_bytes == 1) return float_from_e4m3(element[0]);
  return float_from_bf16(static_cast<Bf16>(element[0] | element[1] << 8));
}

double format_ulp_at(double m, int element_bytes) {
  const int mantissa_bits = element_bytes == 1 ? 3 : 7;
  const int min_exponent = element_bytes == 1 ? -6 : -126;  // of the smallest normal
  int exponent = min_exponent;
  if (m >= std::ldexp(1.0, min_exponent)) {
    std::frexp(m, &exponent);  // m = f * 2^exponent, f in [0.5, 1)
    exponent -= 1;
  }
  return std::ldexp(1.0, exponent - mantissa_bits);
}

std::vector<double> row_ulp_distances(const uint8_t* expected, const uint8_t* actual, int64_t width,
                                      int element_bytes) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> distances(static_cast<size_t>(width), 0.0);
  // The largest finite magnitude: a NaN or infinite weight makes one element of every row
  // non-finite, and the row's other elements are ordinary results (docs/decisions.md).
  double largest = 0;
  for (int64_t e = 0; e < width; ++e) {
    const double v = element_value(expected + e * element_bytes, element_bytes);
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  }
  const double ulp = format_ulp_at(largest, element_bytes);
  for (int64_t e = 0; e < width; ++e) {
    const uint8_t* want = expected + e * element_bytes;
    const uint8_t* got = actual + e * element_bytes;
    const bool same_bits = std::memcmp(want, got, static_cast<size_t>(element_bytes)) == 0;
    const double w = element_value(want, element_bytes);
    const double g = element_value(got, element_bytes);
    if (std::isnan(w) || std::isnan(g)) {
      distances[e] = is_nan_element(want, element_bytes) && is_nan_element(got, element_bytes) ? 0 : inf;
    } else if (std::isinf(w) || std::isinf(g)) {
      distances[e] = same_bits ? 0 : inf;
    } else {
      distances[e] = std::fabs(g - w) / ulp;
    }
  }
  return distances;
}

}  // namespace qsa::engine
