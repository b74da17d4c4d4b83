#pragma once
// How the float outputs of a step (compressed-cache rows and q_out, SPEC 6) are compared with the
// reference. Every entry point compares them through one FloatComparator chosen by a
// FloatTolerance, so a tolerance mode is one more implementation here, not an edit at each caller.
// Ring rows, their int64 position tails, slots, k-work, statuses and metadata are always exact.
//
// Two modes: exact (bit for bit, the rule for our kernels) and the SPEC 6 tolerance mode
// `row-ulp:N` for kernels with other arithmetic: every element within N units in the last place of
// its row's largest finite reference magnitude (bf16 spacing there; e4m3 spacing for fp8), a row
// being the D elements of one compressed row or of one head of one q_out row. NaN matches NaN of
// any payload, infinities must match, and a row whose reference holds an inf or NaN is compared
// exactly (docs/design.md "The float tolerance mode").

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/step_types.hpp"
#include "qsa/traces/float_tolerance.hpp"

namespace qsa::engine {

/// The elements a comparator did not accept: the first (a byte offset into the buffer, decoded by
/// cache_place()) and how many there are in `unit`s.
struct FloatDifference {
  int64_t first_byte = -1;
  int64_t count = 0;
  std::string unit;     // "bytes" for the exact mode, "elements beyond N row-ulps" for row-ulp
  double distance = 0;  // row-ulp mode: the first element's distance in row-ulps (inf: not finite)
};

/// Compares one float output laid out in rows (`rows`: a compressed cache's layout, or q_out as
/// N·HQ dense rows of D elements) with the reference's. Buffers of different sizes never compare
/// equal; the caller reports that before asking.
class FloatComparator {
 public:
  virtual ~FloatComparator() = default;
  virtual traces::FloatTolerance tolerance() const = 0;
  /// nullopt when every element of `actual` is acceptable for `expected`.
  virtual std::optional<FloatDifference> compare(const CacheLayout& rows, ByteView expected,
                                                 ByteView actual) const = 0;
  /// Whether one row of `width` elements of `element_bytes` (2: bf16, 1: fp8) is acceptable (the
  /// model oracle's row checks).
  virtual bool accepts_row(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes) const = 0;
};

/// The comparator of a mode (exact: every byte equal, padding between rows included).
std::unique_ptr<FloatComparator> make_float_comparator(traces::FloatTolerance tolerance = {});

/// The exact comparator, shared (every caller that asks for no tolerance).
const FloatComparator& exact_float_comparator();

/// The first differing byte of two equally sized buffers and the count of differing bytes; the
/// exact rule, also used for the outputs that are never compared with a tolerance.
std::optional<FloatDifference> first_differing_byte(ByteView expected, ByteView actual);

// ---- the row-ulp measure (one place; the comparator and the statistics use it) ----

/// The value of one element (bf16 when element_bytes is 2, e4m3fn when 1).
double element_value(const uint8_t* element, int element_bytes);

/// The spacing of the format at magnitude `m` (>= 0, finite): bf16 2^(e-7), e4m3fn 2^(e-3), the
/// subnormal spacing below the smallest normal.
double format_ulp_at(double m, int element_bytes);

/// The row-ulp distance of every element of one row: |actual - expected| in units of the spacing
/// at the row's largest finite reference magnitude (a row whose reference also holds an inf or NaN
/// included: docs/decisions.md). For an element that is NaN or inf on either side, the distance is
/// 0 when the element matches (NaN matches NaN of any payload) and +inf when it does not.
std::vector<double> row_ulp_distances(const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes);

}  // namespace qsa::engine
