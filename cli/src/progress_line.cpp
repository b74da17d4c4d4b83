#include "progress_line.hpp"

#include <cstdio>
#include <iostream>

#include "output.hpp"

namespace qsa::cli {

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

ProgressLine::ProgressLine(bool quiet, std::chrono::milliseconds first_after)
    : quiet_(quiet),
      terminal_(stderr_is_terminal()),
      // The first line may be drawn once `first_after` has passed (at once by default).
      last_(std::chrono::steady_clock::now() + first_after -
            (terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(10000))) {}

void ProgressLine::update(const std::string& text) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const auto interval = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(10000);
  if (now - last_ < interval) return;
  last_ = now;
  if (terminal_) {
    std::cerr << "\r\033[K" << text << std::flush;
    dirty_ = true;
  } else {
    std::cerr << text << "\n";
  }
}

void ProgressLine::clear() {
  if (terminal_ && dirty_) std::cerr << "\r\033[K" << std::flush;
  dirty_ = false;
}

void ProgressLine::finish(const std::string& text) {
  if (quiet_) return;
  clear();
  std::cerr << text << "\n";
}

}  // namespace qsa::cli
