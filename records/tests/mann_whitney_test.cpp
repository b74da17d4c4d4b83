// The U test against values derived by hand and by enumerating every arrangement.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "qsa/records/mann_whitney.hpp"

namespace qsa::records {
namespace {

TEST(MannWhitneyU, CompleteSeparationOfThreeAndThreeHasPOneTenth) {
  // U = 0; exactly 1 of the C(6, 3) = 20 arrangements has U <= 0; two-sided p = 2 / 20.
  const UTestResult r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.1);
  EXPECT_DOUBLE_EQ(mann_whitney_u({4, 5, 6}, {1, 2, 3}).p_value, 0.1) << "two-sided: the order does not matter";
  EXPECT_EQ(mann_whitney_u({4, 5, 6}, {1, 2, 3}).u, 9);
}

TEST(MannWhitneyU, TwoAndTwoInterleavedHasPTwoThirds) {
  // x = {1, 3}, y = {2, 4}: pairs with x > y: (3, 2) -> U = 1. [4 choose 2]_q = 1 + q + 2q^2 + q^3 + q^4,
  // so P(U <= 1) = 2 / 6 and p = 2 / 3.
  const UTestResult r = mann_whitney_u({1, 3}, {2, 4});
  EXPECT_EQ(r.u, 1);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 3.0);
  EXPECT_EQ(exact_u_distribution(2, 2), (std::vector<double>{1 / 6.0, 1 / 6.0, 2 / 6.0, 1 / 6.0, 1 / 6.0}));
}

TEST(MannWhitneyU, NineAgainstNineSeparatedIsSignificantWithTheSmallestP) {
  std::vector<double> x, y;
  for (int i = 0; i < 9; ++i) {
    x.push_back(10 + i);
    y.push_back(100 + i);
  }
  // One arrangement of C(18, 9) = 48620 has U = 0: p = 2 / 48620.
  EXPECT_NEAR(mann_whitney_u(x, y).p_value, 2.0 / 48620.0, 1e-15);
}

// Every way to choose which m of m + n ranks belong to x, counted by U: the distribution by brute force.
std::vector<double> enumerated_distribution(int m, int n) {
  std::vector<double> counts(static_cast<size_t>(m * n + 1), 0);
  double total = 0;
  for (unsigned mask = 0; mask < (1u << (m + n)); ++mask) {
    if (__builtin_popcount(mask) != m) continue;
    int u = 0, ys_below = 0;
    for (int rank = 0; rank < m + n; ++rank) {
      if (mask & (1u << rank))
        u += ys_below;  // this x beats every y ranked below it
      else
        ++ys_below;
    }
    counts[static_cast<size_t>(u)] += 1;
    total += 1;
  }
  for (double& c : counts) c /= total;
  return counts;
}

TEST(MannWhitneyU, ExactDistributionMatchesEnumerationOfEveryArrangement) {
  for (int m = 1; m <= 6; ++m)
    for (int n = 1; n <= 7; ++n) {
      const std::vector<double> expected = enumerated_distribution(m, n);
      const std::vector<double> actual = exact_u_distribution(m, n);
      ASSERT_EQ(actual.size(), expected.size()) << "m=" << m << " n=" << n;
      for (size_t u = 0; u < expected.size(); ++u)
        EXPECT_NEAR(actual[u], expected[u], 1e-15) << "m=" << m << " n=" << n << " u=" << u;
    }
}

TEST(MannWhitneyU, ExactPEqualsTwiceTheEnumeratedLowerTail) {
  // x = {1, 2, 4, 7}, y = {3, 5, 6, 8, 9}: x beats y at (4,3), (7,3), (7,5), (7,6): U = 4.
  const UTestResult r = mann_whitney_u({1, 2, 4, 7}, {3, 5, 6, 8, 9});
  EXPECT_EQ(r.u, 4);
  const std::vector<double> p = enumerated_distribution(4, 5);
  EXPECT_NEAR(r.p_value, 2 * (p[0] + p[1] + p[2] + p[3] + p[4]), 1e-15);
}

TEST(MannWhitneyU, TiesUseTheNormalApproximationWithTieCorrection) {
  // x = {1, 2, 2, 3}, y = {2, 3, 4, 4}. Ranks: 1 -> 1; the three 2s -> 3; the two 3s -> 5.5; the two
  // 4s -> 7.5. R_x = 1 + 3 + 3 + 5.5 = 12.5, U = 12.5 - 10 = 2.5. Mean 8; tie term 24 + 6 + 6 = 36;
  // variance = 16/12 (9 - 36/56) = 11.142857...; z = (5.5 - 0.5) / sqrt(variance).
  const UTestResult r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 4});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  const double variance = 16.0 / 12.0 * (9.0 - 36.0 / 56.0);
  const double z = 5.0 / std::sqrt(variance);
  EXPECT_NEAR(r.p_value, std::erfc(z / std::sqrt(2.0)), 1e-12);
  EXPECT_NEAR(r.p_value, 0.1342, 5e-4);  // 2 (1 - Phi(1.4979)) from a normal table
}

TEST(MannWhitneyU, LargeSamplesUseTheNormalApproximation) {
  // 25 against 25, separated: U = 0, z = (312.5 - 0.5) / sqrt(25 * 25 * 51 / 12).
  std::vector<double> x, y;
  for (int i = 0; i < 25; ++i) {
    x.push_back(i);
    y.push_back(100 + i);
  }
  const UTestResult r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, std::erfc(312.0 / std::sqrt(625.0 * 51.0 / 12.0) / std::sqrt(2.0)), 1e-15);
}

TEST(MannWhitneyU, IdenticalSamplesGivePOne) {
  EXPECT_EQ(mann_whitney_u({5, 5, 5}, {5, 5, 5}).p_value, 1.0);
  EXPECT_EQ(mann_whitney_u({1, 2, 3, 4}, {1, 2, 3, 4}).p_value, 1.0);  // ties at every value: z clamps to 0
}

}  // namespace
}  // namespace qsa::records
