#include "qsa/traces/float_tolerance.hpp"

#include <algorithm>
#include <cctype>

namespace qsa::traces {

std::string FloatTolerance::to_string() const {
  return mode == Mode::kExact ? std::string("exact") : "row-ulp:" + std::to_string(ulps);
}

std::optional<FloatTolerance> parse_float_tolerance(const std::string& text) {
  if (text == "exact") return FloatTolerance{};
  const std::string prefix = "row-ulp:";
  if (text.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 7 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
  const int64_t n = std::stoll(digits);
  if (n > 1000000) return std::nullopt;
  return FloatTolerance{FloatTolerance::Mode::kRowUlp, n};
}

}  // namespace qsa::traces
