#include "qsa/records/comparison_table.hpp"

#include <cstdio>
#include <sstream>

namespace qsa::records {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, value);
  return text;
}

std::string percent(double change) { return format("%+.1f%%", 100 * change); }
std::string p_text(const BenchmarkChange& c) { return c.p_value < 0 ? "-" : format("%.4f", c.p_value); }
std::string reps(const BenchmarkChange& c) {
  return std::to_string(c.baseline_repetitions) + "/" + std::to_string(c.candidate_repetitions);
}

std::string result_line(const Comparison& comparison, const CompareOptions& options) {
  std::ostringstream out;
  out << "RESULT: ";
  if (comparison.regressions == 0)
    out << "no regression";
  else
    out << comparison.regressions << " regression" << (comparison.regressions > 1 ? "s" : "");
  out << " (a significant slowdown beyond " << format("%.1f", 100 * options.threshold) << "%, U test alpha "
      << format("%.3g", options.alpha) << "); geometric mean of candidate/baseline over " << comparison.changes.size()
      << " benchmarks: " << format("%.4f", comparison.geomean_ratio) << " (" << percent(comparison.geomean_ratio - 1)
      << ")";
  return out.str();
}

}  // namespace

std::string format_time(double ns) {
  if (ns < 1e3) return format("%.0f ns", ns);
  if (ns < 1e6) return format("%.2f us", ns / 1e3);
  if (ns < 1e9) return format("%.2f ms", ns / 1e6);
  return format("%.2f s", ns / 1e9);
}

std::string comparison_text(const Comparison& comparison, const CompareLabels& labels, const CompareOptions& options) {
  std::ostringstream out;
  out << "baseline:  " << labels.baseline << "\ncandidate: " << labels.candidate << "\n";
  for (const std::string& w : comparison.warnings) out << "warning: " << w << "\n";
  size_t width = 9;
  for (const BenchmarkChange& c : comparison.changes) width = std::max(width, c.key.size());
  char line[512];
  std::snprintf(line, sizeof(line), "%-*s %12s %12s %8s %8s %6s  %s\n", static_cast<int>(width), "benchmark",
                "baseline", "candidate", "change", "p", "reps", "verdict");
  out << line;
  for (const BenchmarkChange& c : comparison.changes) {
    std::snprintf(line, sizeof(line), "%-*s %12s %12s %8s %8s %6s  %s\n", static_cast<int>(width), c.key.c_str(),
                  format_time(c.baseline_ns).c_str(), format_time(c.candidate_ns).c_str(), percent(c.change).c_str(),
                  p_text(c).c_str(), reps(c).c_str(), to_string(c.verdict));
    out << line;
  }
  for (const std::string& m : comparison.missing) out << "missing in the candidate: " << m << "\n";
  for (const std::string& a : comparison.added) out << "new in the candidate: " << a << "\n";
  out << result_line(comparison, options) << "\n";
  return out.str();
}

std::string comparison_markdown(const Comparison& comparison, const CompareLabels& labels,
                                const CompareOptions& options) {
  std::ostringstream out;
  out << "**Benchmark comparison**: `" << labels.baseline << "` → `" << labels.candidate << "`\n\n";
  for (const std::string& w : comparison.warnings) out << "> warning: " << w << "\n";
  if (!comparison.warnings.empty()) out << "\n";
  out << "| benchmark | baseline | candidate | change | p | reps | verdict |\n";
  out << "|---|---:|---:|---:|---:|---:|---|\n";
  for (const BenchmarkChange& c : comparison.changes) {
    const bool bad = c.verdict == Verdict::kRegression;
    out << "| `" << c.key << "` | " << format_time(c.baseline_ns) << " | " << format_time(c.candidate_ns) << " | "
        << (bad ? "**" : "") << percent(c.change) << (bad ? "**" : "") << " | " << p_text(c) << " | " << reps(c)
        << " | " << (bad ? ":x: **REGRESSION**" : to_string(c.verdict)) << " |\n";
  }
  for (const std::string& m : comparison.missing) out << "| `" << m << "` | | | | | | missing in the candidate |\n";
  for (const std::string& a : comparison.added) out << "| `" << a << "` | | | | | | new |\n";
  out << "\n" << result_line(comparison, options) << "\n";
  return out.str();
}

}  // namespace qsa::records
