#include "qsa/engine/progress_text.hpp"

#include <cstdio>

namespace qsa::engine {

std::string eta_text(int64_t done, int64_t total, double elapsed_seconds) {
  if (done <= 0 || done > total) return "ETA ?";
  const double left = elapsed_seconds / static_cast<double>(done) * static_cast<double>(total - done);
  return "ETA " + std::to_string(static_cast<int64_t>(left + 0.5)) + " s";
}

std::string overall_progress(int64_t done, int64_t total, double elapsed_seconds, int64_t steps) {
  std::string text = "[jobs " + std::to_string(done) + "/" + std::to_string(total) + ", " +
                     std::to_string(static_cast<int64_t>(elapsed_seconds)) + " s elapsed, " +
                     eta_text(done, total, elapsed_seconds);
  if (steps >= 0 && elapsed_seconds >= 1.0) {  // a rate over less than a second says little
    const double rate = static_cast<double>(steps) / elapsed_seconds;
    char figure[32];  // a slow kernel's rate keeps a decimal: "0.2 steps/s", not "0 steps/s"
    std::snprintf(figure, sizeof figure, rate < 10 ? "%.1f" : "%.0f", rate);
    text += std::string(", ") + figure + " steps/s";
  }
  return text + "]";
}

}  // namespace qsa::engine
