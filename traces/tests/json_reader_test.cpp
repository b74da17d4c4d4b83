// The one JSON reader's limits (docs/limits.md, "Nesting depth"): nesting is refused past
// kMaxJsonDepth before anything is built, brackets inside strings do not count, and an integer
// beyond uint64 is out-of-range rather than a wrong type.

#include <gtest/gtest.h>

#include <string>

#include "qsa/traces/json_reader.hpp"

namespace qsa::traces {
namespace {

std::string nested(int64_t depth) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

Error error_of(const std::string& text) {
  try {
    parse_json(text);
  } catch (const InputError& e) {
    return e.error();
  }
  return Error{};
}

TEST(JsonReader, NestingUpToTheLimitParsesOnePastItIsTooDeep) {
  EXPECT_NO_THROW(parse_json(nested(kMaxJsonDepth)));
  const Error deep = error_of(nested(kMaxJsonDepth + 1));
  EXPECT_EQ(deep.field, "input");
  EXPECT_EQ(deep.rule, "too-deep");
  EXPECT_EQ(deep.index, kMaxJsonDepth);  // the byte offset of the bracket that passes the limit
  EXPECT_EQ(error_of("{\"a\": " + nested(kMaxJsonDepth) + "}").rule, "too-deep");
}

TEST(JsonReader, BracketsInsideStringsDoNotCount) {
  const std::string brackets(2 * static_cast<size_t>(kMaxJsonDepth), '[');
  EXPECT_NO_THROW(parse_json("[\"" + brackets + "\"]"));
  EXPECT_NO_THROW(parse_json("[\"\\\"" + brackets + "\"]"));  // an escaped quote does not end the string
  // An escaped backslash does end the string: the nesting after it counts.
  EXPECT_EQ(error_of("[\"\\\\\", " + nested(kMaxJsonDepth) + "]").rule, "too-deep");
}

TEST(JsonReader, AnIntegerBeyondUint64IsOutOfRangeNotAWrongType) {
  EXPECT_EQ(
      [] {
        try {
          json_integer(parse_json("18446744073709551616"), "seq_lens", 1);
        } catch (const InputError& e) {
          return e.error().rule;
        }
        return std::string();
      }(),
      "out-of-range");
  for (const char* text : {"1.5", "1e3", "\"7\""}) {
    try {
      json_integer(parse_json(text), "seq_lens", 1);
      ADD_FAILURE() << text << " was taken as an integer";
    } catch (const InputError& e) {
      EXPECT_EQ(e.error().rule, "wrong-type") << text;
    }
  }
}

}  // namespace
}  // namespace qsa::traces
