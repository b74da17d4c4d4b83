// The kernel's division by invariant integers (optimized/src/kernels/invariant_divider.hpp) equals
// plain division for every divisor the kernel meets and dividends across the int32 range.

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/invariant_divider.hpp"

namespace qsa {
namespace {

using cuda::detail::InvariantDivider;

void expect_exact(uint32_t d, uint32_t n) {
  const InvariantDivider divider = InvariantDivider::make(d);
  ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
  ASSERT_EQ(divider.remainder(n), n % d) << n << " % " << d;
}

TEST(InvariantDivider, EqualsPlainDivisionForEveryDivisorUpToTwoToTheTwenty) {
  std::mt19937_64 rng(3);  // a fixed seed: the same divisors and numerators on every run
  for (uint32_t d = 1; d <= (1u << 20); ++d) {
    const InvariantDivider divider = InvariantDivider::make(d);
    const uint32_t edges[] = {0,
                              1,
                              d - 1,
                              d,
                              d + 1,
                              2 * d - 1,
                              2 * d,
                              0x7FFFFFFFu,
                              0x7FFFFFFFu - 1,
                              0xFFFFFFFFu,
                              static_cast<uint32_t>((0x7FFFFFFFu / d) * d),
                              static_cast<uint32_t>((0x7FFFFFFFu / d) * d - 1)};
    for (uint32_t n : edges) {
      ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
      ASSERT_EQ(divider.remainder(n), n % d) << n << " % " << d;
    }
    for (int i = 0; i < 8; ++i) {
      const auto n = static_cast<uint32_t>(rng());
      ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
    }
  }
}

TEST(InvariantDivider, EqualsPlainDivisionForLargeDivisorsAndEveryDividendOfSmallOnes) {
  for (uint32_t d : {(1u << 20) + 1, (1u << 24) - 3, 0x7FFFFFFFu, 0x80000000u, 1000000007u})
    for (uint32_t n : {0u, 1u, d - 1, d, 0x7FFFFFFFu, 0xFFFFFFFFu}) expect_exact(d, n);
  for (uint32_t d : {1u, 2u, 3u, 4u, 7u, 16u, 1023u, 1024u})
    for (uint32_t n = 0; n < (1u << 22); ++n) {
      const InvariantDivider divider = InvariantDivider::make(d);
      ASSERT_EQ(divider.quotient(n), n / d) << n << " / " << d;
    }
}

TEST(InvariantDivider, SignedQuotientAndRemainderEqualPlainDivisionOverTheInt32Range) {
  // div and mod (the metadata kernel's non-negative int32 dividends) take a 32-bit path of their own.
  std::mt19937_64 rng(5);
  for (uint32_t d : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 1023u, 1024u, 1u << 20, (1u << 20) + 1, 0x7FFFFFFFu, 0x80000000u}) {
    const InvariantDivider divider = InvariantDivider::make(d);
    std::vector<int32_t> dividends = {0, 1, 0x7FFFFFFF, 0x7FFFFFFE, static_cast<int32_t>((0x7FFFFFFFu / d) * d)};
    if (d <= 0x7FFFFFFFu)
      for (int32_t n : {static_cast<int32_t>(d) - 1, static_cast<int32_t>(d)}) dividends.push_back(n);
    for (int i = 0; i < 100000; ++i) dividends.push_back(static_cast<int32_t>(rng() & 0x7FFFFFFFu));
    for (int32_t n : dividends) {
      const auto u = static_cast<uint32_t>(n);
      ASSERT_EQ(divider.div(n), static_cast<int32_t>(u / d)) << n << " / " << d;
      ASSERT_EQ(divider.mod(n), static_cast<int32_t>(u % d)) << n << " % " << d;
    }
  }
}

}  // namespace
}  // namespace qsa
