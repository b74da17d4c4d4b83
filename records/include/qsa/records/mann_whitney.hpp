#pragma once
// The two-sided Mann-Whitney U test (Wilcoxon rank-sum), the test Google Benchmark's compare.py
// runs over the repetitions of a benchmark in two runs. docs/decisions.md says why it is ours.

#include <vector>

namespace qsa::records {

struct UTestResult {
  double u = 0;        // U of the first sample: pairs (x, y) with x > y, ties counting 1/2
  double p_value = 1;  // two-sided
  bool exact = false;  // true: the exact null distribution; false: the normal approximation
};

/// Samples with no ties and at most this many values each use the exact distribution.
inline constexpr int kExactUTestMaxSize = 20;

/// Tests whether x and y come from the same distribution. Preconditions: both non-empty.
/// Exact (no ties, both sizes <= kExactUTestMaxSize): p = min(1, 2 P(U <= min(U, n m - U))).
/// Otherwise the normal approximation with the tie correction of the variance and a continuity
/// correction of 1/2 (scipy.stats.mannwhitneyu's asymptotic method). All values equal: p = 1.
/// Example: x = {1, 2, 3}, y = {4, 5, 6}: U = 0, P(U <= 0) = 1 / C(6, 3), p = 0.1 (exact).
UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

/// P(U = u) for u = 0 .. m n under the null hypothesis, sizes m and n without ties: the
/// coefficients of the Gaussian binomial [m + n choose m]_q divided by C(m + n, m).
std::vector<double> exact_u_distribution(int m, int n);

}  // namespace qsa::records
