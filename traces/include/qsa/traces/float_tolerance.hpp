#pragma once
// The float comparison mode a user names (`--float-tolerance`) and a scenario file states (SPEC 6:
// exact, or the declared tolerance `row-ulp:N` for kernels with other arithmetic). The comparators
// that apply it are the checking engine's (qsa/engine/float_comparator.hpp).

#include <cstdint>
#include <optional>
#include <string>

namespace qsa::traces {

/// The float comparison mode, as a user names it.
struct FloatTolerance {
  enum class Mode { kExact, kRowUlp };
  Mode mode = Mode::kExact;
  int64_t ulps = 0;  // N of row-ulp:N

  bool exact() const { return mode == Mode::kExact; }
  std::string to_string() const;  // "exact" or "row-ulp:N"
  bool operator==(const FloatTolerance& o) const { return mode == o.mode && ulps == o.ulps; }
  bool operator!=(const FloatTolerance& o) const { return !(*this == o); }
};

/// The rule for the flag value, for error messages and help.
inline constexpr const char* kFloatToleranceRule = "expected 'exact' or 'row-ulp:N' with N an integer in [0, 1000000]";

/// Parses "exact" or "row-ulp:N"; nullopt for anything else (the caller names the flag and
/// kFloatToleranceRule).
std::optional<FloatTolerance> parse_float_tolerance(const std::string& text);

}  // namespace qsa::traces
