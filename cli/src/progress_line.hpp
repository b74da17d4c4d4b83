#pragma once
// The progress line of long commands, on stderr: redrawn in place on a terminal, a plain line
// every ten seconds in a log.

#include <chrono>
#include <string>

namespace qsa::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool quiet = false);
  void update(const std::string& text);  // rate-limited
  void finish(const std::string& text);  // always printed, on its own line
 private:
  bool quiet_;
  bool terminal_;
  std::chrono::steady_clock::time_point last_;
  bool dirty_ = false;
};

}  // namespace qsa::cli
