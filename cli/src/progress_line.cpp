#include "progress_line.hpp"

#include <cstdio>
#include <iostream>

#include "output.hpp"

namespace qsa::cli {

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
