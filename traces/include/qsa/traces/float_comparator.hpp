#pragma once
// How the float outputs of a step (compressed-cache rows and q_out, SPEC 6) are compared with the
// reference. Every entry point compares them through one FloatComparator chosen by a
// FloatTolerance, so a tolerance mode is one more implementation here, not an edit at each caller.
// Ring rows, their int64 position tails, slots, k-work, statuses and metadata are always exact.
//
// Today there is one mode, exact (bit-for-bit, the rule for our kernels). The SPEC 6 tolerance mode
// of a later issue (`--float-tolerance row-ulp:N`: every element within N ulps of the largest
// finite reference magnitude of its row, a row being the D elements of one compressed row or of one
// head of one q_out row) becomes FloatTolerance::Mode::kRowUlp and a second comparator class in
// float_comparator.cpp; its rows are the layout's rows, which compare() already receives.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qsa/step_types.hpp"

namespace qsa::traces {

/// The float comparison mode, as a user names it.
struct FloatTolerance {
  enum class Mode { kExact };
  Mode mode = Mode::kExact;

  std::string to_string() const;  // "exact"
};

/// The elements a comparator did not accept: the first (a byte offset into the buffer, decoded by
/// cache_place()) and how many there are in `unit`s.
struct FloatDifference {
  int64_t first_byte = -1;
  int64_t count = 0;
  std::string unit;  // "bytes" for the exact mode
};

/// Compares one float output laid out in rows (`rows`: a compressed cache's layout, or q_out as
/// N·HQ dense rows of D elements) with the reference's. Buffers of different sizes never compare
/// equal; the caller reports that before asking.
class FloatComparator {
 public:
  virtual ~FloatComparator() = default;
  virtual FloatTolerance tolerance() const = 0;
  /// nullopt when every element of `actual` is acceptable for `expected`.
  virtual std::optional<FloatDifference> compare(const CacheLayout& rows, const std::vector<uint8_t>& expected,
                                                 const std::vector<uint8_t>& actual) const = 0;
};

/// The comparator of a mode (exact: every byte equal, padding between rows included).
std::unique_ptr<FloatComparator> make_float_comparator(FloatTolerance tolerance = {});

/// The exact comparator, shared (every caller that asks for no tolerance).
const FloatComparator& exact_float_comparator();

/// The first differing byte of two equally sized buffers and the count of differing bytes; the
/// exact rule, also used for the outputs that are never compared with a tolerance.
std::optional<FloatDifference> first_differing_byte(const std::vector<uint8_t>& expected,
                                                    const std::vector<uint8_t>& actual);

}  // namespace qsa::traces
