#include "qsa/records/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace qsa::records {

std::vector<double> exact_u_distribution(int m, int n) {
  // [n + i choose i]_q = [n + i - 1 choose i - 1]_q (1 - q^(n + i)) / (1 - q^i): every step keeps
  // integer coefficients (counts of arrangements), exact in a double up to C(40, 20) ~ 1.4e11.
  const size_t size = static_cast<size_t>(m) * static_cast<size_t>(n) + 1;
  std::vector<double> counts(size, 0.0);
  counts[0] = 1;
  for (int i = 1; i <= m; ++i) {
    const size_t up = static_cast<size_t>(n + i);
    for (size_t k = size; k-- > up;) counts[k] -= counts[k - up];  // times (1 - q^(n + i))
    for (size_t k = static_cast<size_t>(i); k < size; ++k)
      counts[k] += counts[k - static_cast<size_t>(i)];  // divided by (1 - q^i)
  }
  double total = 0;
  for (double c : counts) total += c;
  for (double& c : counts) c /= total;
  return counts;
}

UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  std::vector<std::pair<double, bool>> all;  // (value, from x)
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Average ranks of tied groups; the tie term sums t^3 - t over the groups.
  double rank_sum_x = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_x += rank;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
  UTestResult result;
  result.u = rank_sum_x - m1 * (m1 + 1) / 2;
  const double mean = m1 * m2 / 2;
  if (tie_term == 0 && n1 <= kExactUTestMaxSize && n2 <= kExactUTestMaxSize) {
    result.exact = true;
    const std::vector<double> p = exact_u_distribution(static_cast<int>(n1), static_cast<int>(n2));
    const auto low = static_cast<size_t>(std::lround(std::min(result.u, m1 * m2 - result.u)));
    double tail = 0;
    for (size_t u = 0; u <= low; ++u) tail += p[u];
    result.p_value = std::min(1.0, 2 * tail);
    return result;
  }
  const double nn = static_cast<double>(n);
  const double variance = m1 * m2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference
  const double z = std::max(0.0, std::fabs(result.u - mean) - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

}  // namespace qsa::records
