// The ring capacity table of SPEC 3, with the seed rule and the widening rule.

#include <gtest/gtest.h>

#include "qsa/ring_capacity.hpp"

namespace qsa {
namespace {

int64_t capacity(int64_t c, int64_t drafts, int64_t b, RingRule rule) {
  int64_t r = -1;
  Error error;
  EXPECT_EQ(ring_capacity(c, drafts, b, rule, &r, &error), Status::kOk) << error;
  return r;
}

Error failure(int64_t c, int64_t drafts, int64_t b, RingRule rule) {
  int64_t r = -1;
  Error error;
  EXPECT_EQ(ring_capacity(c, drafts, b, rule, &r, &error), Status::kInvalidInput);
  EXPECT_EQ(r, -1);
  return error;
}

TEST(RingCapacity, SeedRuleMatchesTheSpecTable) {
  EXPECT_EQ(capacity(4, 0, 48, RingRule::kSeed), 4);
  EXPECT_EQ(capacity(4, 1, 48, RingRule::kSeed), 8);
  EXPECT_EQ(capacity(4, 3, 48, RingRule::kSeed), 8);
  EXPECT_EQ(capacity(4, 4, 48, RingRule::kSeed), 8);
  EXPECT_EQ(capacity(4, 5, 48, RingRule::kSeed), 12);
  EXPECT_EQ(capacity(2, 3, 48, RingRule::kSeed), 6);
}

TEST(RingCapacity, SeedRuleRejectsACapacityThatDoesNotDivideTheBlock) {
  const Error e = failure(4, 5, 40, RingRule::kSeed);
  EXPECT_EQ(e.field, "block_size");
  EXPECT_EQ(e.rule, "not-divisible");
  EXPECT_NE(e.message.find("12"), std::string::npos) << e.message;  // names R
  EXPECT_NE(e.message.find("40"), std::string::npos) << e.message;  // names B
}

TEST(RingCapacity, WidenRuleMatchesTheSpecExamples) {
  EXPECT_EQ(capacity(4, 5, 40, RingRule::kWiden), 20);
  EXPECT_EQ(capacity(4, 5, 848, RingRule::kWiden), 16);
  EXPECT_EQ(capacity(4, 3, 48, RingRule::kWiden), 8);  // equal to the seed rule when R divides B
  const Error e = failure(4, 13, 16, RingRule::kWiden);
  EXPECT_EQ(e.field, "block_size");
  EXPECT_EQ(e.rule, "no-capacity");
}

TEST(RingCapacity, RealBlockSizesWithTheRealConfiguration) {
  // SPEC 9: C = 4 with 1-4 drafts gives R = 8, which divides every production block size.
  for (int64_t b : {16, 784, 800, 848, 1568, 1600, 1616})
    for (int64_t drafts = 1; drafts <= 4; ++drafts) EXPECT_EQ(capacity(4, drafts, b, RingRule::kSeed), 8) << b;
}

TEST(RingCapacity, WidenRuleIsFastForLargePrimeBlocks) {
  // 2147483647 is prime: no multiple of 4 divides it; the divisor scan is O(sqrt(B)).
  EXPECT_EQ(failure(4, 1, 2147483647, RingRule::kWiden).rule, "no-capacity");
  EXPECT_EQ(capacity(1, 0, 2147483647, RingRule::kWiden), 1);
}

TEST(RingCapacity, ArgumentsOutOfRangeAreNamed) {
  EXPECT_EQ(failure(0, 1, 16, RingRule::kSeed).field, "compress_ratio");
  EXPECT_EQ(failure(4, -1, 16, RingRule::kSeed).field, "num_speculative_tokens");
  EXPECT_EQ(failure(4, 1, 0, RingRule::kSeed).field, "block_size");
  EXPECT_EQ(failure(4, 1, 0, RingRule::kSeed).rule, "out-of-range");
}

}  // namespace
}  // namespace qsa
