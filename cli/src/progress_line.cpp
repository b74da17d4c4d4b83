#include "progress_line.hpp"

#include <iostream>

#include "output.hpp"

namespace qsa::cli {

ProgressLine::ProgressLine(bool quiet)
    : quiet_(quiet), terminal_(stderr_is_terminal()), last_(std::chrono::steady_clock::now() - std::chrono::hours(1)) {}

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

void ProgressLine::finish(const std::string& text) {
  if (quiet_) return;
  if (terminal_ && dirty_) std::cerr << "\r\033[K";
  dirty_ = false;
  std::cerr << text << "\n";
}

}  // namespace qsa::cli
