#pragma once
// What a tolerance-mode run measured on one float output (compressed-cache rows or q_out): the
// share of bit-identical elements, a histogram of row-ulp distances, and the worst element with
// where it lies. The report and the JSON of `qsacheck check` and `qsacheck replay` print it, so a
// kernel that only passes within N row-ulps reads differently from one that is bit-identical.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qsa::engine {

/// The worst element seen: its row-ulp distance, where it lies and both values.
struct FloatWorst {
  double distance = -1;  // -1: no element yet
  int64_t request = -1;  // -1 where unknown (a padding row)
  int64_t position = -1;
  int64_t head = -1;     // q_out only
  int64_t row = -1;      // the q_out row (token) or the compressed slot
  int64_t element = -1;  // within the row
  std::string expected;  // "0x3f80 (1)"
  std::string actual;
};

struct FloatStatistics {
  int64_t ulps = 0;  // N of the tolerance
  int64_t elements = 0;
  int64_t identical = 0;           // bit-identical (NaN of another payload is not)
  int64_t beyond = 0;              // farther than N row-ulps
  std::vector<int64_t> histogram;  // one count per row_ulp_bin_labels(ulps) entry
  FloatWorst worst;

  explicit FloatStatistics(int64_t n = 0);
  double identical_share() const {
    return elements > 0 ? static_cast<double>(identical) / static_cast<double>(elements) : 1.0;
  }
  /// "q_out: 100.000% bit-identical of 1234 elements; row-ulp histogram 0:1234 1:0 >1:0; worst ..."
  std::string to_string(const std::string& output) const;
};

/// The histogram bins for N: "0", "1", "2", "3-4", "5-8", ... up to N, then ">N". An element's
/// distance is rounded up to a whole row-ulp before it is binned.
std::vector<std::string> row_ulp_bin_labels(int64_t n);
size_t row_ulp_bin(double distance, int64_t n);

/// Adds one row of `width` elements to `stats`; `where` names its request, position, head and row
/// (the element and the values are filled in when it holds the new worst element).
void tally_row(FloatStatistics& stats, const uint8_t* expected, const uint8_t* actual, int64_t width, int element_bytes,
               const FloatWorst& where);

/// The two float outputs of a step update.
struct StepFloatStatistics {
  FloatStatistics compressed;
  FloatStatistics q_out;
  explicit StepFloatStatistics(int64_t n = 0) : compressed(n), q_out(n) {}
};

nlohmann::json to_json(const FloatStatistics& stats);

/// The inverse of to_json() (`qsacheck merge` reads reports); throws InputError naming the field
/// (prefixed by `context`) on a malformed value.
FloatStatistics float_statistics_from_json(const nlohmann::json& json, const std::string& context);

/// Adds `from`'s counts to `into` (the same N), as if `from`'s rows were tallied after `into`'s:
/// `from`'s worst element replaces `into`'s only when strictly farther. Returns whether it did.
/// Jobs run apart (threads, shards) are combined with it in job order, so the result is the
/// sequential run's.
bool absorb(FloatStatistics& into, const FloatStatistics& from);

}  // namespace qsa::engine
