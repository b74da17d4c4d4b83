#pragma once
// The progress line of long commands, on stderr: redrawn in place on a terminal, a plain line
// every ten seconds in a log. Its text for a campaign is the engine's (qsa/engine/progress_text.hpp).

#include <chrono>
#include <cstdint>
#include <string>

#include "qsa/engine/progress_text.hpp"

namespace qsa::cli {

using engine::eta_text;
using engine::overall_progress;

class ProgressLine {
 public:
  /// With `first_after` > 0 nothing is drawn before that much time has passed, so that a short
  /// run leaves no progress line at all.
  explicit ProgressLine(bool quiet = false, std::chrono::milliseconds first_after = std::chrono::milliseconds(0));
  void update(const std::string& text);  // rate-limited
  void finish(const std::string& text);  // always printed, on its own line
  void clear();                          // erases a line drawn in place on a terminal
 private:
  bool quiet_;
  bool terminal_;
  std::chrono::steady_clock::time_point last_;
  bool dirty_ = false;
};

}  // namespace qsa::cli
