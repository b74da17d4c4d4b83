#pragma once
// Reading JSON objects field by field with errors that name the field, the index and the rule
// (the same shape as validate()'s errors). Unknown fields are rejected so a typo in an optional
// field cannot pass silently.

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qsa/input_error.hpp"
#include "qsa/status.hpp"

namespace qsa::traces {

/// Arrays and objects nested deeper than this are refused before parsing (docs/limits.md).
inline constexpr int64_t kMaxJsonDepth = 512;

/// Parses text as JSON; malformed text (invalid UTF-8 included) throws {field "input", index = byte
/// offset, rule "malformed-json"}; nesting past kMaxJsonDepth throws {field "input", index = byte
/// offset of the bracket that passes it, rule "too-deep"}; a key repeated in one object throws
/// {field = its path, e.g. "config.seed", rule "duplicate-key"}.
nlohmann::json parse_json(const std::string& text);

class JsonObjectReader {
 public:
  /// `context` prefixes field names in errors (e.g. "ring[3]." for nested objects).
  explicit JsonObjectReader(const nlohmann::json& object, std::string context = "");

  bool has(const char* field) const;
  int64_t integer(const char* field);  // required
  /// A required integer in [lo, hi], else {field, rule "out-of-range"} naming the range.
  int64_t bounded_integer(const char* field, int64_t lo, int64_t hi);
  std::optional<int64_t> optional_integer(const char* field);
  double number(const char* field);
  bool boolean(const char* field);
  std::string string(const char* field);
  std::vector<int64_t> integer_array(const char* field, bool required = true);
  /// Rows may be required to share one length (`rectangular`); entries checked against [lo, hi].
  std::vector<std::vector<int64_t>> integer_matrix(const char* field, int64_t lo, int64_t hi, bool rectangular,
                                                   bool required = true);
  const nlohmann::json& raw(const char* field);  // required, any type; marks the field used
  const nlohmann::json* optional_raw(const char* field);

  /// Throws {field, rule "unknown-field"} for the first field no accessor asked for.
  void reject_unknown_fields() const;

  [[noreturn]] void fail(const std::string& field, int64_t index, const std::string& rule,
                         const std::string& message) const;

 private:
  const nlohmann::json& lookup(const char* field, bool required);
  const nlohmann::json& object_;
  std::string context_;
  std::set<std::string> used_;
};

/// An integer from a JSON value, or throws wrong-type / out-of-range naming field and index.
int64_t json_integer(const nlohmann::json& value, const std::string& field, int64_t index);

}  // namespace qsa::traces
