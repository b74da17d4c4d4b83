#include "number_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "qsa/traces/json_reader.hpp"

namespace qsa::cli {
namespace {

[[noreturn]] void fail(const std::string& option, const std::string& rule, const std::string& message) {
  throw InputError(Error{option, -1, rule, message});
}

// At most 40 characters of what was typed, so a 5000-digit argument is not echoed whole.
std::string shown(const std::string& text) { return text.size() > 40 ? text.substr(0, 40) + "..." : text; }

}  // namespace

std::string readable_integer(int64_t value) {
  if (value > 0 && value >= (int64_t{1} << 20)) {
    for (int k = 20; k < 63; ++k) {
      if (value == (int64_t{1} << k)) return "2^" + std::to_string(k);
      if (value == (int64_t{1} << k) - 1) return "2^" + std::to_string(k) + "-1";
    }
    if (value == std::numeric_limits<int64_t>::max()) return "2^63-1";
  }
  return std::to_string(value);
}

int64_t parse_integer_option(const std::string& option, const std::string& text, int64_t lo, int64_t hi) {
  const std::string range = "[" + readable_integer(lo) + ", " + readable_integer(hi) + "]";
  size_t digits_from = text.size() > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (text.size() == digits_from || text.find_first_not_of("0123456789", digits_from) != std::string::npos)
    fail(option, "not-an-integer", "'" + shown(text) + "' is not an integer; expected one in " + range);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || value < lo || value > hi) fail(option, "out-of-range", shown(text) + " is outside " + range);
  return value;
}

uint64_t parse_seed_option(const std::string& option, const std::string& text) {
  const std::string range = "[0, 2^64-1]";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    const bool negative = !text.empty() && text[0] == '-' && text.size() > 1 &&
                          text.find_first_not_of("0123456789", 1) == std::string::npos;
    fail(option, negative ? "out-of-range" : "not-an-integer",
         "'" + shown(text) + "' is not a seed; expected an integer in " + range);
  }
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE) fail(option, "out-of-range", shown(text) + " is outside " + range);
  return value;
}

double parse_seconds_option(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    fail(option, "not-a-number", "'" + shown(text) + "' is not a number of seconds");
  if (!std::isfinite(value) || !(value > 0) || value > 1e9)
    fail(option, "out-of-range", shown(text) + " is outside (0, 1e9] seconds");
  return value;
}

}  // namespace qsa::cli
