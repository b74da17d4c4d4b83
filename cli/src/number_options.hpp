#pragma once
// Integer options read as text and parsed here, so every out-of-range or malformed number is an
// exit-2 error naming the option (CLI11 alone wraps a negative seed, saturates 2^64 and accepts
// 2^63 steps), and ranges are printed as people write them (2^40, not 40 digits).

#include <cstdint>
#include <string>

namespace qsa::cli {

/// `text` as an integer in [lo, hi]; throws InputError {field option, rule "not-an-integer" or
/// "out-of-range"}.
int64_t parse_integer_option(const std::string& option, const std::string& text, int64_t lo, int64_t hi);

/// `text` as an unsigned 64-bit seed (0 ... 2^64-1); no sign, no wrap.
uint64_t parse_seed_option(const std::string& option, const std::string& text);

/// `text` as seconds, a finite number in (0, 1e9]; throws like parse_integer_option.
double parse_seconds_option(const std::string& option, const std::string& text);

/// 1000 -> "1000", 1099511627776 -> "2^40", 9223372036854775807 -> "2^63-1".
std::string readable_integer(int64_t value);

}  // namespace qsa::cli
